// @modelgate/inference-client: the gateway's gRPC client to workers (DESIGN §3.2).
export {
  type InferRequest,
  type InferResult,
  type InferenceClientOptions,
  type WorkerStatus,
  InferenceClient,
} from './inference-client.js';
export {
  type DecodedInferResponse,
  type InferInput,
  type InferMessageFields,
  type InferOutput,
  type InferParameterValue,
  type WorkerTimings,
  decodeInferResponse,
  encodeInferRequest,
  workerTimings,
} from './infer-codec.js';
export { type RowLayout, modelRowLayout } from './merge-calls.js';
export { GrpcWorkerChannel } from './grpc-worker-channel.js';
export { type LocalCall, type LocalWorkerEndpoint, LocalWorkerChannel } from './local-worker-channel.js';
export { type OutlierEjectorOptions, type WorkerHealth, OutlierEjector } from './outlier-ejector.js';
export { type PickOptions, type WorkerLoad, type WorkerPick, pickWorker } from './pick-worker.js';
export { type RetryBudgetOptions, type RetryBudgetState, RetryBudget } from './retry-budget.js';
export {
  type WorkerCallOptions,
  type WorkerChannel,
  type WorkerChannelFactory,
  WorkerCallError,
} from './worker-channel.js';
export {
  QUEUE_FULL_RETRY_AFTER_SECONDS,
  isRetryableStatus,
  noReadyWorkerError,
  workerCallToModelgateError,
} from './worker-errors.js';
export { type WorkerGroupAddresses } from './worker-pool.js';
export {
  type GenerateCall,
  type GenerateChunk,
  type GenerateRequest,
  decodeGenerateResponse,
  encodeGenerateRequest,
} from './generate-call.js';
export { type ModelGenerateRequestMessage, type ModelGenerateResponseMessage } from './generate-messages.js';
export { type ModelInferRequestMessage, type ModelInferResponseMessage } from './infer-messages.js';
