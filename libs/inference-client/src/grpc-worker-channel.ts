import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import {
  GrpcStatus,
  INFERENCE_PROTO_PATH,
  INFERENCE_SERVICE_NAME,
  OIP_CLIENT_LOADER_OPTIONS,
} from '@modelgate/contracts';
import { type ModelGenerateRequestMessage, type ModelGenerateResponseMessage } from './generate-messages.js';
import { type ModelInferRequestMessage, type ModelInferResponseMessage } from './infer-messages.js';
import { type WorkerCallOptions, WorkerCallError, type WorkerChannel } from './worker-channel.js';

type UnaryMethod = protoLoader.MethodDefinition<object, object>;

export interface InferenceMethods {
  modelInfer: UnaryMethod;
  modelGenerate: UnaryMethod;
  serverReady: UnaryMethod;
  modelReady: UnaryMethod;
}

let methods: InferenceMethods | undefined;

/**
 * The methods the client calls, loaded from the contracts proto once per process: their paths
 * and the client side's serializers (the in-process transport, local-worker-channel.ts, uses them too).
 */
export function inferenceMethods(): InferenceMethods {
  methods ??= loadInferenceMethods();
  return methods;
}

function loadInferenceMethods(): InferenceMethods {
  const definition = protoLoader.loadSync(INFERENCE_PROTO_PATH, OIP_CLIENT_LOADER_OPTIONS);
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
    modelGenerate: method('ModelGenerate'),
    serverReady: method('ServerReady'),
    modelReady: method('ModelReady'),
  };
}

/**
 * The grpc-js options of every channel to a worker: 256 MiB messages; keepalive pings every 30 s
 * while calls run, dropped after 10 s unanswered; reconnection backoff capped at 5 s (grpc-js would
 * wait up to 120 s, longer than a restarted worker should stay unused).
 */
const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.max_send_message_length': 256 * 1024 * 1024,
  'grpc.max_receive_message_length': 256 * 1024 * 1024,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  // Pings without calls would earn a GOAWAY (too_many_pings) from C-core servers such as Triton.
  'grpc.keepalive_permit_without_calls': 0,
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 5000,
  // A DNS name (a headless Service) resolving to several pods spreads over all of them.
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
};

/**
 * A persistent grpc-js connection to one worker (Open Inference Protocol v2). Created once per
 * address and reused by every call; it starts connecting at once so the first call does not
 * pay for the handshake.
 */
export class GrpcWorkerChannel implements WorkerChannel {
  private readonly client: grpc.Client;

  constructor(readonly address: string) {
    this.client = new grpc.Client(address, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
    this.client.getChannel().getConnectivityState(true);
  }

  modelInfer(
    request: ModelInferRequestMessage,
    options: WorkerCallOptions,
  ): Promise<ModelInferResponseMessage> {
    return this.unary(inferenceMethods().modelInfer, request, options);
  }

  async *modelGenerate(
    request: ModelGenerateRequestMessage,
    options: WorkerCallOptions,
  ): AsyncGenerator<ModelGenerateResponseMessage> {
    const { signal } = options;
    if (signal?.aborted) throw new WorkerCallError(GrpcStatus.CANCELLED, 'the caller cancelled the call');
    const method = inferenceMethods().modelGenerate;
    const call = this.client.makeServerStreamRequest<object, ModelGenerateResponseMessage>(
      method.path,
      method.requestSerialize,
      method.responseDeserialize as (bytes: Buffer) => ModelGenerateResponseMessage,
      request,
      toMetadata(options),
      { deadline: options.deadlineEpochMs },
    );
    let ended = false;
    const onAbort = () => call.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const message of call as AsyncIterable<ModelGenerateResponseMessage>) yield message;
      ended = true;
    } catch (error) {
      ended = true;
      throw toWorkerCallError(error);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      // The consumer left early (break, return, a throw of its own): the worker frees the slot.
      if (!ended) call.cancel();
    }
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
    const metadata = toMetadata(options);
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

/** The call's gRPC metadata. */
function toMetadata(options: WorkerCallOptions): grpc.Metadata {
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(options.metadata ?? {})) metadata.set(key, value);
  return metadata;
}

/** A stream's failure as a WorkerCallError (grpc-js emits a ServiceError with code and details). */
function toWorkerCallError(error: unknown): WorkerCallError {
  if (error instanceof WorkerCallError) return error;
  const status = (error as Partial<grpc.ServiceError> | undefined)?.code;
  if (typeof status === 'number') {
    const details = (error as grpc.ServiceError).details;
    return new WorkerCallError(status, details, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new WorkerCallError(GrpcStatus.INTERNAL, message, { cause: error });
}
