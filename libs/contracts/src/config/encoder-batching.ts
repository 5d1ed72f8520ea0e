/**
 * Batching settings an encoder model's own graph can refuse (every task but text-generation and
 * image-to-text): checked by the registry's preparation and again by a worker loading a spec that
 * reached no preparation (WORKER_CONFIG_FILE), so that neither accepts one that would never apply.
 */
import { isTokenModel } from '../tensors/token-model.js';
import { decoderMaxBatchSize } from './decoder-batching.js';
import { type ModelTask, isGenerativeTask } from './model-task.js';
import { describeTensors } from './describe-tensors.js';
import {
  DEFAULT_MAX_BATCH_SIZE,
  DEFAULT_MAX_BATCH_TOKENS,
  ENCODER_ONLY_BATCHING_DEFAULTS,
} from './model-spec.schema.js';

/** What the checks read of an input (TensorMetadata, or a worker's declaration). */
type GraphInput = { readonly name: string; readonly datatype: string; readonly dims: readonly number[] };

/** The batching fields the checks read. */
export interface EncoderBatchingSettings {
  /** Undefined: not given (as large as the graph takes, at most DEFAULT_MAX_BATCH_SIZE). */
  readonly maxBatchSize?: number | undefined;
  readonly preferredBatchSizes: readonly number[];
  readonly maxPaddingRatio: number;
  readonly maxBatchTokens: number;
}

/**
 * The most rows one run of the graph takes: the smallest fixed leading dimension among its inputs
 * (an export with a static batch of 1, say); undefined when every input's batch is dynamic.
 */
export function fixedBatchSize(inputs: readonly GraphInput[]): number | undefined {
  const fixed = inputs
    .map((input) => input.dims[0])
    .filter((dim): dim is number => dim !== undefined && dim > 0);
  return fixed.length === 0 ? undefined : Math.min(...fixed);
}

/**
 * The batch size the batcher may fill: maxBatchSize as given, else as many as the graph takes
 * (its fixed batch, or DEFAULT_MAX_BATCH_SIZE for a dynamic one). A given one the graph cannot
 * take is refused (encoderBatchingProblems), never cut down here.
 */
export function effectiveMaxBatchSize(
  maxBatchSize: number | undefined,
  inputs: readonly GraphInput[],
): number {
  if (maxBatchSize !== undefined) return maxBatchSize;
  const fixed = fixedBatchSize(inputs);
  return fixed === undefined ? DEFAULT_MAX_BATCH_SIZE : Math.min(DEFAULT_MAX_BATCH_SIZE, fixed);
}

/** What in `batching` cannot apply to an encoder model with these inputs; empty when all of it can. */
export function encoderBatchingProblems(
  batching: EncoderBatchingSettings,
  inputs: readonly GraphInput[],
): string[] {
  const problems: string[] = [];
  const fixed = fixedBatchSize(inputs);
  // Absent, maxBatchSize means "as large as the graph takes" (effectiveMaxBatchSize); given, exactly that.
  if (fixed !== undefined && batching.maxBatchSize !== undefined && batching.maxBatchSize > fixed) {
    problems.push(
      `batching.maxBatchSize ${batching.maxBatchSize} cannot apply: the graph takes batches of at most ${fixed} ` +
        `(${describeTensors(inputs)}); set it to ${fixed} or less, or leave it out`,
    );
  }
  const tooLarge = fixed === undefined ? [] : batching.preferredBatchSizes.filter((size) => size > fixed);
  if (tooLarge.length > 0) {
    problems.push(
      `batching.preferredBatchSizes ${tooLarge.join(', ')} cannot apply: the graph takes batches of at most ${fixed}`,
    );
  }
  if (!isTokenModel(inputs)) {
    const unpadded =
      `only a model whose inputs are all INT64 [batch, sequence] with an attention_mask is padded (rows of this ` +
      `one, ${describeTensors(inputs)}, batch only with rows of the same shape); leave it out`;
    if (batching.maxPaddingRatio !== ENCODER_ONLY_BATCHING_DEFAULTS.maxPaddingRatio)
      problems.push(`batching.maxPaddingRatio has no meaning for this model: ${unpadded}`);
    if (batching.maxBatchTokens !== DEFAULT_MAX_BATCH_TOKENS)
      problems.push(
        `batching.maxBatchTokens (padded tokens per run) has no meaning for this model: ${unpadded}`,
      );
  }
  return problems;
}

/**
 * The batch size a model runs with, as the worker resolves it (for the gateway's call sizes, TEI's
 * /info and the CLI): its maxBatchSize as given, else as large as its graph takes.
 */
export function resolvedMaxBatchSize(model: {
  readonly task: ModelTask;
  readonly batching: { readonly maxBatchSize?: number | undefined };
  readonly inputs: readonly GraphInput[];
}): number {
  return isGenerativeTask(model.task)
    ? decoderMaxBatchSize(model.batching.maxBatchSize, model.inputs)
    : effectiveMaxBatchSize(model.batching.maxBatchSize, model.inputs);
}
