// Raw tensors to a model by its name, as KServe v2 passes them through: the REST route
// (v2-infer.controller.ts) and the gRPC face (grpc/gateway-grpc.ts) both call the worker here.
import { type ModelSpec } from '@modelgate/contracts';
import { type InferInput, type InferResult, type InferenceClient } from '@modelgate/inference-client';
import { type EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { workerGroupFor } from '../endpoints/worker-discovery.js';
import { publicWorkerError } from '../serving/worker-call.js';
import { findV2Model } from './v2-models.js';

/** One raw call: the inputs as the model declares them, the outputs wanted (all when absent). */
export interface RawInferCall {
  id?: string;
  inputs: InferInput[];
  outputs?: string[];
  /** The request's own time limit; the model's batching.defaultTimeoutMs when absent. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The model `name` (`version`, else the newest servable) that `tables` serves; NOT_FOUND otherwise. */
export function rawModel(tables: EndpointTables, name: string, version: string | undefined): ModelSpec {
  return findV2Model(tables.current, name, version);
}

/** Runs `call` on a worker serving `spec`; worker failures as the public error of that model. */
export async function inferRaw(
  client: InferenceClient,
  spec: ModelSpec,
  call: RawInferCall,
): Promise<InferResult> {
  return client
    .infer({
      modelName: spec.name,
      modelVersion: spec.version,
      ...(call.id !== undefined ? { id: call.id } : {}),
      inputs: call.inputs,
      ...(call.outputs ? { outputs: call.outputs } : {}),
      workerGroup: workerGroupFor(client, spec),
      deadlineEpochMs: Date.now() + (call.timeoutMs ?? spec.batching.defaultTimeoutMs),
      ...(call.signal ? { signal: call.signal } : {}),
    })
    .catch((error: unknown) => {
      throw publicWorkerError(error, spec.id);
    });
}
