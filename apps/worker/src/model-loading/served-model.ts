import { type ModelSpec } from '@modelgate/contracts';
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
  /** The provider its sessions run on. */
  provider?: ExecutionProviderName;
  sessions: OnnxSession[];
  inputs: readonly TensorDeclaration[];
  outputs: readonly TensorDeclaration[];
  runner?: ModelRunner;
}

/** A copy of `spec` with nothing loaded yet. */
export function emptyCopy(spec: ModelSpec): ServedModel {
  return { spec, state: 'LOADING', sessions: [], inputs: [], outputs: [] };
}

/** Orders copies of one model: READY before any other state. */
export function readiness(model: ServedModel): number {
  return model.state === 'READY' ? 1 : 0;
}
