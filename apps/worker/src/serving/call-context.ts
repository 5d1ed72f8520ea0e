import { type Metadata, type ServerUnaryCall, type ServerWritableStream } from '@grpc/grpc-js';

/**
 * What a serving method needs of the call that carries a request, whatever the transport: gRPC
 * (grpcCallContext below) or the in-process one of a co-located gateway (local-endpoint.ts).
 */
export interface CallContext {
  /** When the caller stops waiting, ms since the epoch; Infinity when it set no deadline. */
  readonly deadlineEpochMs: number;
  /** Whether the transport itself ends the call at its deadline (grpc-js does), so a handler need not. */
  readonly endsAtDeadline: boolean;
  /** A request header (gRPC metadata) value, or undefined when absent. */
  header(name: string): string | undefined;
  /** Calls `listener` once if the caller goes away (cancels, or its deadline passes) before the answer. */
  onCancel(listener: () => void): void;
}

/** The context of a grpc-js call. */
export function grpcCallContext(
  metadata: Metadata,
  call: ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>,
): CallContext {
  const deadline = call.getDeadline();
  return {
    deadlineEpochMs: deadline instanceof Date ? deadline.getTime() : deadline,
    endsAtDeadline: true,
    header: (name) => {
      const value = metadata.get(name)[0];
      return value === undefined ? undefined : String(value);
    },
    // grpc-js emits 'cancelled' on every call once it ends, answered or not: handlers ignore a late one.
    onCancel: (listener) => void call.once('cancelled', listener),
  };
}
