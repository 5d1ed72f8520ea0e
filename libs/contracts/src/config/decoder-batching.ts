import { POSITION_IDS } from './export-names.js';
import { DEFAULT_MAX_BATCH_SIZE } from './model-spec.schema.js';

/**
 * Sequences a text-generation or image-to-text decoder with these inputs decodes together:
 * maxBatchSize as given, else DEFAULT_MAX_BATCH_SIZE, or 1 for a decoder without position_ids.
 */
export function decoderMaxBatchSize(
  maxBatchSize: number | undefined,
  inputs: readonly { readonly name: string }[],
): number {
  if (maxBatchSize !== undefined) return maxBatchSize;
  return inputs.length === 0 || inputs.some((input) => input.name === POSITION_IDS)
    ? DEFAULT_MAX_BATCH_SIZE
    : 1;
}

/**
 * Why `maxBatchSize` cannot apply to a text-generation or image-to-text decoder with these inputs;
 * undefined when it can. A decoder without position_ids numbers positions from the padded cache,
 * the same for every row, so a left-padded row beside a longer one would get shifted positions and
 * wrong tokens: the worker decodes its sequences one at a time. There `maxBatchSize` must be left
 * out (which then means one) or be 1, rather than be accepted and ignored, whatever its value.
 */
export function decoderBatchSizeProblem(
  maxBatchSize: number | undefined,
  inputs: readonly { readonly name: string }[],
): string | undefined {
  if (maxBatchSize === undefined || maxBatchSize === 1) return undefined;
  if (inputs.some((input) => input.name === POSITION_IDS)) return undefined;
  return (
    `batching.maxBatchSize ${maxBatchSize} cannot apply: the decoder takes no ${POSITION_IDS}, so it numbers ` +
    'positions from its padded cache and decodes one sequence at a time; leave maxBatchSize out or set it to 1 ' +
    `(an export with ${POSITION_IDS}, as optimum-cli writes for GPT-2 or Llama, decodes sequences together)`
  );
}
