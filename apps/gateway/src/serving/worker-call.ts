/**
 * The gateway's ModelInfer of one served call: the model's worker group, the call's deadline,
 * request id and cancellation, and the layout under which calls of the same turn may share one
 * ModelInfer (libs/inference-client/src/call-merger.ts); transport errors made fit for clients.
 */
import { ErrorCode, ModelgateError, resolvedMaxBatchSize } from '@modelgate/contracts';
import {
  type InferRequest,
  type InferResult,
  type InferenceClient,
  type RowLayout,
  modelRowLayout,
} from '@modelgate/inference-client';
import { type ServableModel } from '../endpoints/endpoint-table.js';
import { workerGroupFor } from '../endpoints/worker-discovery.js';

/** Per-call options of a worker call. */
export interface InferOptions {
  deadlineEpochMs: number;
  requestId: string;
  signal?: AbortSignal;
}

/** ModelInfer of `inputs` on a worker of `model`'s group. */
export function callWorker(
  client: InferenceClient,
  model: ServableModel,
  inputs: InferRequest['inputs'],
  options: InferOptions,
): Promise<InferResult> {
  const spec = model.spec;
  return client
    .infer({
      modelName: spec.name,
      modelVersion: spec.version,
      id: options.requestId,
      inputs,
      workerGroup: workerGroupFor(client, spec),
      deadlineEpochMs: options.deadlineEpochMs,
      metadata: { 'x-request-id': options.requestId },
      ...(options.signal ? { signal: options.signal } : {}),
      merge: rowLayoutOf(model),
    })
    .catch((error: unknown) => {
      throw publicWorkerError(error, spec.id);
    });
}

const rowLayouts = new WeakMap<ServableModel, RowLayout>();

/** How `model`'s calls may share a ModelInfer (worked out once per model of a config revision). */
function rowLayoutOf(model: ServableModel): RowLayout {
  let layout = rowLayouts.get(model);
  if (layout === undefined) {
    layout = modelRowLayout(mergedRowLimit(model.spec), model.inputNames, model.spec.outputs);
    rowLayouts.set(model, layout);
  }
  return layout;
}

/**
 * The most rows a merged call of a model may hold. The worker splits a call into rows and its
 * batcher runs up to maxBatchSize of them per instance, so maxBatchSize × instances rows fill every
 * instance at once and their batches finish together; the worker's queue admits a call whole, so
 * never more than maxQueueSize.
 */
export function mergedRowLimit(
  spec: Parameters<typeof resolvedMaxBatchSize>[0] & {
    batching: { maxQueueSize: number };
    runtime: { instances: number };
  },
): number {
  return Math.min(resolvedMaxBatchSize(spec) * spec.runtime.instances, spec.batching.maxQueueSize);
}

/**
 * Worker-side failures as a client should see them: UNAVAILABLE messages from the transport name
 * internal addresses, so they are replaced (the gateway logs the original through the filter). A
 * worker's NOT_FOUND for a model this gateway routes is a moment of config skew (the worker applied
 * a change, such as a rollback, before this gateway did): the endpoint exists, so the client is told
 * to retry (503), not that it is missing (404).
 */
export function publicWorkerError(error: unknown, modelId: string): unknown {
  if (
    error instanceof ModelgateError &&
    (error.code === ErrorCode.UNAVAILABLE || error.code === ErrorCode.NOT_FOUND)
  ) {
    return new ModelgateError(
      ErrorCode.UNAVAILABLE,
      `no worker can serve model ${modelId} right now`,
      error.code === ErrorCode.NOT_FOUND ? { ...error.details, retryAfterSeconds: 1 } : error.details,
      { cause: error },
    );
  }
  return error;
}
