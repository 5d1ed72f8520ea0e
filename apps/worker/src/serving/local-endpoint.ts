/**
 * The worker's side of the in-process transport (libs/inference-client local-worker-channel.ts):
 * a co-located gateway hands it protobuf bytes, which it decodes with the options its gRPC server
 * uses, runs through the same controllers as a gRPC call, and answers as bytes. Failures are
 * WorkerCallErrors with the gRPC status the gRPC filter would send (grpc-exception.filter.ts).
 */
import * as protoLoader from '@grpc/proto-loader';
import {
  INFERENCE_PROTO_PATH,
  INFERENCE_SERVICE_NAME,
  toGrpcStatusError,
  OIP_SERVER_LOADER_OPTIONS,
} from '@modelgate/contracts';
import { type LocalCall, type LocalWorkerEndpoint, WorkerCallError } from '@modelgate/inference-client';
import { type Logger } from '@modelgate/observability';
import { type CallContext } from './call-context.js';
import { type GenerationController } from './generation.controller.js';
import { type ModelGenerateRequestMessage, type ModelGenerateResponseMessage } from './generate-request.js';
import { type InferenceController } from './inference.controller.js';
import {
  type OipInferRequest as ModelInferRequestMessage,
  type OipInferResponse as ModelInferResponseMessage,
} from '@modelgate/contracts';

/** How the worker's gRPC server reads and writes messages (main.ts passes the same to Nest). */
export const WORKER_PROTO_LOADER_OPTIONS: protoLoader.Options = OIP_SERVER_LOADER_OPTIONS;

type Method = protoLoader.MethodDefinition<object, object>;

/** The server side's codecs of the two serving methods, loaded once. */
let codecs: { infer: Method; generate: Method } | undefined;

function serverCodecs(): { infer: Method; generate: Method } {
  if (codecs) return codecs;
  const definition = protoLoader.loadSync(INFERENCE_PROTO_PATH, WORKER_PROTO_LOADER_OPTIONS);
  const service = definition[INFERENCE_SERVICE_NAME];
  if (service === undefined || 'format' in service)
    throw new Error(`${INFERENCE_SERVICE_NAME} is not a service in ${INFERENCE_PROTO_PATH}`);
  const method = (name: string): Method => {
    const found = service[name];
    if (found === undefined) throw new Error(`${INFERENCE_SERVICE_NAME} has no method ${name}`);
    return found;
  };
  codecs = { infer: method('ModelInfer'), generate: method('ModelGenerate') };
  return codecs;
}

/** What the endpoint serves through. */
export interface LocalEndpointParts {
  /** The address the worker heartbeats. */
  address: string;
  workerGroup: string;
  inference: InferenceController;
  generation: GenerationController;
  logger: Logger;
}

/** The in-process endpoint of this worker. */
export function createLocalEndpoint(parts: LocalEndpointParts): LocalWorkerEndpoint {
  const { inference, generation, logger } = parts;
  const { infer, generate } = serverCodecs();
  return {
    address: parts.address,
    workerGroup: parts.workerGroup,
    async modelInfer(bytes, call) {
      try {
        const request = infer.requestDeserialize(Buffer.from(bytes)) as ModelInferRequestMessage;
        const response: ModelInferResponseMessage = await inference.infer(request, localContext(call));
        return infer.responseSerialize(response);
      } catch (error) {
        throw failure(error, logger);
      }
    },
    modelGenerate(bytes, call, onMessage) {
      return new Promise<void>((resolve, reject) => {
        let request: ModelGenerateRequestMessage;
        try {
          request = generate.requestDeserialize(Buffer.from(bytes)) as ModelGenerateRequestMessage;
        } catch (error) {
          reject(failure(error, logger));
          return;
        }
        const subscription = generation.generate(request, localContext(call)).subscribe({
          next: (message: ModelGenerateResponseMessage) => onMessage(generate.responseSerialize(message)),
          error: (error: unknown) => reject(failure(error, logger)),
          complete: () => resolve(),
        });
        // The caller went away (or its deadline passed): the teardown cancels the sequence.
        call.signal.addEventListener('abort', () => subscription.unsubscribe(), { once: true });
      });
    },
    serverReady: () => inference.serverReady().ready,
    modelReady: (name, version) => inference.modelReady({ name, version }).ready,
  };
}

/** A failure as the gRPC filter would answer it, as the channel reports it. */
function failure(error: unknown, logger: Logger): WorkerCallError {
  const status = toGrpcStatusError(error, (unknown) =>
    logger.error({ err: unknown }, 'unexpected error in a gRPC handler'),
  );
  return new WorkerCallError(status.code, status.message);
}

/** A local call as the controllers see calls. */
function localContext(call: LocalCall): CallContext {
  return {
    deadlineEpochMs: call.deadlineEpochMs,
    // The channel answers DEADLINE_EXCEEDED at the deadline and aborts the signal; the runner
    // stops waiting for the batch then too, as for a deadline of its own.
    endsAtDeadline: false,
    header: (name) => call.metadata[name],
    onCancel: (listener) => call.signal.addEventListener('abort', listener, { once: true }),
  };
}
