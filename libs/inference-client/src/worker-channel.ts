import { type CancelSignal } from '@modelgate/batching';
import { type ModelGenerateRequestMessage, type ModelGenerateResponseMessage } from './generate-messages.js';
import { type ModelInferRequestMessage, type ModelInferResponseMessage } from './infer-messages.js';

/** Per-call settings a channel passes to gRPC. */
export interface WorkerCallOptions {
  /** Absolute deadline, ms since the epoch (`Date.now()` time); sent as `grpc-timeout`. */
  deadlineEpochMs: number;
  /** Request metadata (e.g. `x-request-id`). */
  metadata?: Readonly<Record<string, string>> | undefined;
  /** Cancels the call (gRPC CANCELLED) when it aborts. */
  signal?: CancelSignal | undefined;
}

/** A failed call: the gRPC status and its details, whether the worker or the channel produced it. */
export class WorkerCallError extends Error {
  override readonly name = 'WorkerCallError';

  constructor(
    /** gRPC status code (see GrpcStatus). */
    readonly status: number,
    /** The status details: the worker's message, or the channel's for connection failures. */
    readonly details: string,
    options?: { cause?: unknown },
  ) {
    super(details, options);
  }
}

/**
 * One persistent connection to one worker. Implementations reject failed calls with a
 * WorkerCallError; everything else (balancing, retries, ejection) is the client's.
 */
export interface WorkerChannel {
  /** The gRPC target this channel talks to. */
  readonly address: string;
  /** Open Inference Protocol ModelInfer. */
  modelInfer(
    request: ModelInferRequestMessage,
    options: WorkerCallOptions,
  ): Promise<ModelInferResponseMessage>;
  /**
   * ModelGenerate: the worker's messages as they come. Failures (before or during the stream)
   * throw a WorkerCallError; aborting `options.signal` or leaving the iteration early cancels the
   * call, which frees the sequence's slot on the worker.
   */
  modelGenerate(
    request: ModelGenerateRequestMessage,
    options: WorkerCallOptions,
  ): AsyncIterable<ModelGenerateResponseMessage>;
  /** ServerReady: whether the worker takes inference requests. */
  serverReady(options: WorkerCallOptions): Promise<boolean>;
  /** ModelReady: whether `name` (at `version`, or the server's pick when empty) can serve now. */
  modelReady(name: string, version: string, options: WorkerCallOptions): Promise<boolean>;
  /** Closes the connection; calls still running may fail. */
  close(): void;
}

/** Creates the channel for an address (the gRPC one in production, fakes in unit tests). */
export type WorkerChannelFactory = (address: string) => WorkerChannel;
