import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { GrpcStatus, INFERENCE_PROTO_PATH, INFERENCE_SERVICE_NAME } from '@modelgate/contracts';
import { type ModelInferRequestMessage, type ModelInferResponseMessage } from './infer-messages.js';
import { type WorkerCallOptions, WorkerCallError, type WorkerChannel } from './worker-channel.js';

/** Connection settings of every channel to a worker. */
export interface GrpcChannelSettings {
  /** Largest message sent or received, in bytes. @defaultValue 268435456 (256 MiB) */
  maxMessageBytes?: number;
  /** Interval between keepalive pings on a connection with calls running, in ms. @defaultValue 30000 */
  keepaliveTimeMs?: number;
  /** How long a keepalive ping may go unanswered before the connection is dropped, in ms. @defaultValue 10000 */
  keepaliveTimeoutMs?: number;
  /**
   * Longest wait between reconnection attempts to a worker that went away, in ms (grpc-js would
   * wait up to 120 s, longer than a restarted worker should stay unused). @defaultValue 5000
   */
  maxReconnectBackoffMs?: number;
  /** Extra grpc-js channel options, applied last (they win). @defaultValue {} */
  channelOptions?: grpc.ChannelOptions;
}

type UnaryMethod = protoLoader.MethodDefinition<object, object>;

interface InferenceMethods {
  modelInfer: UnaryMethod;
  serverReady: UnaryMethod;
  modelReady: UnaryMethod;
}

let methods: InferenceMethods | undefined;

/** The three methods the client calls, loaded from the contracts proto once per process. */
function inferenceMethods(): InferenceMethods {
  methods ??= loadInferenceMethods();
  return methods;
}

function loadInferenceMethods(): InferenceMethods {
  const definition = protoLoader.loadSync(INFERENCE_PROTO_PATH, {
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    arrays: true,
    oneofs: true,
  });
  const service = definition[INFERENCE_SERVICE_NAME];
  if (service === undefined || 'format' in service) {
    throw new Error(`${INFERENCE_SERVICE_NAME} is not a service in ${INFERENCE_PROTO_PATH}`);
  }
  const method = (name: string): UnaryMethod => {
    const found = service[name];
    if (found === undefined) throw new Error(`${INFERENCE_SERVICE_NAME} has no method ${name}`);
    return found;
  };
  return {
    modelInfer: method('ModelInfer'),
    serverReady: method('ServerReady'),
    modelReady: method('ModelReady'),
  };
}

/** The grpc-js channel options for `settings`. */
export function grpcChannelOptions(settings: GrpcChannelSettings = {}): grpc.ChannelOptions {
  const maxMessageBytes = settings.maxMessageBytes ?? 256 * 1024 * 1024;
  return {
    'grpc.max_send_message_length': maxMessageBytes,
    'grpc.max_receive_message_length': maxMessageBytes,
    'grpc.keepalive_time_ms': settings.keepaliveTimeMs ?? 30_000,
    'grpc.keepalive_timeout_ms': settings.keepaliveTimeoutMs ?? 10_000,
    // Pings without calls would earn a GOAWAY (too_many_pings) from C-core servers such as Triton.
    'grpc.keepalive_permit_without_calls': 0,
    'grpc.initial_reconnect_backoff_ms': 200,
    'grpc.max_reconnect_backoff_ms': settings.maxReconnectBackoffMs ?? 5000,
    // A DNS name (a headless Service) resolving to several pods spreads over all of them.
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
    ...settings.channelOptions,
  };
}

/**
 * A persistent grpc-js connection to one worker (Open Inference Protocol v2). Created once per
 * address and reused by every call; it starts connecting at once so the first call does not
 * pay for the handshake.
 */
export class GrpcWorkerChannel implements WorkerChannel {
  private readonly client: grpc.Client;

  constructor(
    readonly address: string,
    settings: GrpcChannelSettings = {},
  ) {
    this.client = new grpc.Client(address, grpc.credentials.createInsecure(), grpcChannelOptions(settings));
    this.client.getChannel().getConnectivityState(true);
  }

  modelInfer(
    request: ModelInferRequestMessage,
    options: WorkerCallOptions,
  ): Promise<ModelInferResponseMessage> {
    return this.unary(inferenceMethods().modelInfer, request, options);
  }

  async serverReady(options: WorkerCallOptions): Promise<boolean> {
    const response = await this.unary<{ ready?: boolean }>(inferenceMethods().serverReady, {}, options);
    return response.ready === true;
  }

  async modelReady(name: string, version: string, options: WorkerCallOptions): Promise<boolean> {
    const response = await this.unary<{ ready?: boolean }>(
      inferenceMethods().modelReady,
      { name, version },
      options,
    );
    return response.ready === true;
  }

  close(): void {
    this.client.close();
  }

  private unary<T>(method: UnaryMethod, request: object, options: WorkerCallOptions): Promise<T> {
    const { signal } = options;
    if (signal?.aborted) {
      return Promise.reject(new WorkerCallError(GrpcStatus.CANCELLED, 'the caller cancelled the call'));
    }
    const metadata = new grpc.Metadata();
    for (const [key, value] of Object.entries(options.metadata ?? {})) metadata.set(key, value);
    return new Promise<T>((resolve, reject) => {
      let onAbort: (() => void) | undefined;
      const call = this.client.makeUnaryRequest<object, object>(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        request,
        metadata,
        { deadline: options.deadlineEpochMs },
        (error, response) => {
          if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
          if (error) reject(new WorkerCallError(error.code, error.details, { cause: error }));
          else resolve(response as T);
        },
      );
      if (signal !== undefined) {
        onAbort = () => call.cancel();
        signal.addEventListener('abort', onAbort, { once: true });
      }
    });
  }
}
