import { ErrorCode, type ModelSpec, ModelgateError } from '@modelgate/contracts';
import { type GenerationRunner } from '../generation/generation-runner.js';
import { type ModelRunner } from '../serving/model-runner.js';
import { type ExecutionProviderName } from './execution-providers.js';
import { type OnnxSession, type TensorDeclaration } from './onnx-session.adapter.js';

/**
 * Where a model is in its life on this worker. Only READY serves; LOADING covers fetch, sha256
 * check, session creation and warm-up; DRAINING admits nothing and finishes what it holds.
 */
export type ModelState = 'LOADING' | 'READY' | 'FAILED' | 'DRAINING';

/** A model this worker was assigned, with its sessions once loaded. */
export interface ServedModel {
  readonly spec: ModelSpec;
  state: ModelState;
  /** Why it FAILED, in words a person can act on. */
  reason?: string;
  /** While READY: why loading its replacement (a changed spec) failed, so it still serves. */
  reloadFailure?: string;
  /** How many of its instances run on each provider (several when instances fell back differently). */
  providers?: ReadonlyMap<ExecutionProviderName, number>;
  sessions: OnnxSession[];
  /** Encoder models on the CPU with instances sharing the cores: a session with a thread per core for batches that find the model idle. */
  soloSession?: OnnxSession;
  inputs: readonly TensorDeclaration[];
  outputs: readonly TensorDeclaration[];
  /** Encoder models: the dynamic batcher in front of the sessions. */
  runner?: ModelRunner;
  /** text-generation and image-to-text models: the continuous-batching front of the sessions' decode loops. */
  generator?: GenerationRunner;
  /** image-to-text models: the image encoder's pixel_values dims after the batch, [C, H, W] (-1 dynamic). */
  imageDims?: readonly number[] | undefined;
}

/** A copy of `spec` with nothing loaded yet. */
export function emptyCopy(spec: ModelSpec): ServedModel {
  return { spec, state: 'LOADING', sessions: [], inputs: [], outputs: [] };
}

/** Orders copies of one model: READY before any other state. */
export function readiness(model: ServedModel): number {
  return model.state === 'READY' ? 1 : 0;
}

/** The two ways to run a model: encoders take ModelInfer, text-generation and image-to-text models ModelGenerate. */
export type ServingMethod = 'ModelInfer' | 'ModelGenerate';

/** Why `model` cannot take a `method` call now (not READY, or the other method's model), or undefined. */
export function servingRefusal(model: ServedModel, method: ServingMethod): ModelgateError | undefined {
  if (model.state !== 'READY' || (!model.runner && !model.generator)) {
    const why =
      model.state === 'FAILED' ? `failed: ${model.reason ?? 'unknown reason'}` : model.state.toLowerCase();
    return new ModelgateError(ErrorCode.MODEL_NOT_READY, `model '${model.spec.id}' is not ready (${why})`);
  }
  if (method === 'ModelInfer' && !model.runner) {
    return new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `model '${model.spec.id}' is a ${model.spec.task} model: use ModelGenerate, not ModelInfer`,
    );
  }
  if (method === 'ModelGenerate' && !model.generator) {
    return new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `model '${model.spec.id}' is a ${model.spec.task} model: ModelGenerate serves text-generation and image-to-text models only; use ModelInfer`,
    );
  }
  return undefined;
}
