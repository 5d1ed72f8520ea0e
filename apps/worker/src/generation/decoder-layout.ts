/**
 * What the worker needs to know about a decoder exported *with past* (Hugging Face / Optimum
 * layout), read from the ONNX graph's inputs alone: no config.json on the worker. The cache of
 * layer N is fed as `past_key_values.N.key` / `.value` [batch, heads, past_sequence, head_size]
 * and comes back as `present.N.key` / `.value` with one more position per fed token.
 */
import { type GenerationLimits } from '@modelgate/generation';
import { type TensorDeclaration } from '../model-loading/onnx-session.adapter.js';

/** The cache geometry and optional inputs of one decoder graph. */
export interface DecoderLayout {
  /** Transformer layers (one key and one value cache tensor each). */
  readonly layers: number;
  /** Attention heads per layer. */
  readonly heads: number;
  /** Size of one head's key/value vector. */
  readonly headSize: number;
  /**
   * Whether the graph takes `position_ids` (GPT-2 exports do). One that does not numbers
   * positions itself from the padded cache width, which is right for one unpadded sequence only:
   * see {@link limitsForLayout}.
   */
  readonly hasPositionIds: boolean;
}

const PAST = /^past_key_values\.(\d+)\.(key|value)$/;

/** True when the graph's inputs look like a decoder with a KV cache (any `past_key_values.*`). */
export function isDecoderWithPast(inputs: readonly TensorDeclaration[]): boolean {
  return inputs.some((input) => PAST.test(input.name));
}

/**
 * The layout of a decoder graph, or an error message saying why it is not one the worker can
 * run: inputs `input_ids` and `attention_mask`, `past_key_values.{0..L-1}.key/value` FP32 of rank
 * 4 with static heads and head size, and outputs `logits` and `present.{i}.key/value`.
 */
export function decoderLayoutOf(
  inputs: readonly TensorDeclaration[],
  outputs: readonly TensorDeclaration[],
): DecoderLayout | string {
  const names = new Set(inputs.map((input) => input.name));
  for (const required of ['input_ids', 'attention_mask']) {
    if (!names.has(required)) return `a text-generation model needs an input '${required}'`;
  }
  if (!outputs.some((output) => output.name === 'logits'))
    return "a text-generation model needs an output 'logits'";
  const pasts = inputs.filter((input) => PAST.test(input.name));
  if (pasts.length === 0) {
    return 'a text-generation model must be exported with past (inputs past_key_values.N.key/value)';
  }
  let heads = -1;
  let headSize = -1;
  for (const past of pasts) {
    if (past.datatype !== 'FP32')
      return `input '${past.name}' is ${past.datatype}; only FP32 caches are supported`;
    const [, h, , d] = past.dims;
    if (past.dims.length !== 4 || h === undefined || d === undefined || h < 1 || d < 1) {
      return `input '${past.name}' must be [batch, heads, past_sequence, head_size] with static heads and head size`;
    }
    if ((heads !== -1 && heads !== h) || (headSize !== -1 && headSize !== d)) {
      return `input '${past.name}' has dims ${JSON.stringify(past.dims)} unlike the other cache inputs`;
    }
    heads = h;
    headSize = d;
  }
  const layers = pasts.length / 2;
  const outputNames = new Set(outputs.map((output) => output.name));
  for (let layer = 0; layer < layers; layer++) {
    for (const part of ['key', 'value']) {
      if (!names.has(`past_key_values.${layer}.${part}`))
        return `input 'past_key_values.${layer}.${part}' is missing`;
      if (!outputNames.has(`present.${layer}.${part}`)) return `output 'present.${layer}.${part}' is missing`;
    }
  }
  return { layers, heads, headSize, hasPositionIds: names.has('position_ids') };
}

/**
 * The limits the decode loop of `layout` runs under. A graph without `position_ids` computes
 * positions as arange(past_width, past_width + sequence) over the whole padded batch, so a
 * left-padded row (a shorter sequence beside a longer one) would get shifted positions and wrong
 * tokens: such a graph decodes one sequence at a time (one slot, hence one joiner per prefill),
 * which keeps it exact.
 */
export function limitsForLayout(layout: DecoderLayout, limits: GenerationLimits): GenerationLimits {
  return layout.hasPositionIds ? limits : { ...limits, maxSequences: 1 };
}
