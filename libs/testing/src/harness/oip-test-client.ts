import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { HEALTH_PROTO_PATH, INFERENCE_PROTO_PATH, OIP_CLIENT_LOADER_OPTIONS } from '@modelgate/contracts';

/** What a test sends: request fields in proto names (snake_case). */
export type Message = Record<string, unknown>;

export interface CallOptions {
  deadlineMs?: number;
  metadata?: Record<string, string>;
  /** Cancels a unary call when it aborts, as a client that gives up does (the call rejects with CANCELLED). */
  signal?: AbortSignal;
}

/** A tiny Open Inference Protocol client over our proto, for worker tests. */
export class OipTestClient {
  private readonly inference: grpc.Client;
  private readonly health: grpc.Client;

  constructor(address: string) {
    const definition = protoLoader.loadSync(
      [INFERENCE_PROTO_PATH, HEALTH_PROTO_PATH],
      OIP_CLIENT_LOADER_OPTIONS,
    );
    const pkg = grpc.loadPackageDefinition(definition) as unknown as {
      inference: { GRPCInferenceService: grpc.ServiceClientConstructor };
      grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
    };
    const options = { 'grpc.max_receive_message_length': 256 * 1024 * 1024 };
    this.inference = new pkg.inference.GRPCInferenceService(
      address,
      grpc.credentials.createInsecure(),
      options,
    );
    this.health = new pkg.grpc.health.v1.Health(address, grpc.credentials.createInsecure());
  }

  /** Calls an inference method; rejects with the grpc-js ServiceError on failure. */
  call<T = Message>(method: string, request: Message, options: CallOptions = {}): Promise<T> {
    return unary<T>(this.inference, method, request, options);
  }

  /**
   * Calls a server-streaming inference method (ModelGenerate): iterate the stream with `for await`
   * (a failed call throws the grpc-js ServiceError), end it early with `cancel()`.
   */
  stream<T = Message>(
    method: string,
    request: Message,
    options: CallOptions = {},
  ): grpc.ClientReadableStream<T> {
    const fn = (this.inference as unknown as Record<string, unknown>)[method];
    if (typeof fn !== 'function') throw new Error(`no such method ${method}`);
    return (fn as (...args: unknown[]) => grpc.ClientReadableStream<T>).call(
      this.inference,
      request,
      toMetadata(options),
      toCallOptions(options),
    );
  }

  /** Calls grpc.health.v1.Health/Check. */
  check(service = ''): Promise<{ status: string }> {
    return unary(this.health, 'Check', { service }, {});
  }

  close(): void {
    this.inference.close();
    this.health.close();
  }
}

function toMetadata(options: CallOptions): grpc.Metadata {
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(options.metadata ?? {})) metadata.set(key, value);
  return metadata;
}

function toCallOptions(options: CallOptions): grpc.CallOptions {
  return options.deadlineMs ? { deadline: Date.now() + options.deadlineMs } : {};
}

function unary<T>(client: grpc.Client, method: string, request: Message, options: CallOptions): Promise<T> {
  const metadata = toMetadata(options);
  const callOptions = toCallOptions(options);
  const fn = (client as unknown as Record<string, unknown>)[method];
  if (typeof fn !== 'function') throw new Error(`no such method ${method}`);
  return new Promise<T>((resolve, reject) => {
    const call = (fn as (...args: unknown[]) => grpc.ClientUnaryCall).call(
      client,
      request,
      metadata,
      callOptions,
      (error: grpc.ServiceError | null, response: T) => (error ? reject(error) : resolve(response)),
    );
    options.signal?.addEventListener('abort', () => call.cancel(), { once: true });
  });
}
