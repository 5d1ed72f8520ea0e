/**
 * What the worker needs to know about a decoder exported *with past* (Hugging Face / Optimum
 * layout), read from the ONNX graph's inputs alone: no config.json on the worker. The cache of
 * layer N is fed as `past_key_values.N.key` / `.value` [batch, heads, past_sequence, head_size]
 * and comes back as `present.N.key` / `.value` with one more position per fed token.
 */
import {
  ENCODER_HIDDEN_STATES,
  LAST_HIDDEN_STATE,
  PAST_KEY_VALUES_INPUT,
  PIXEL_VALUES,
  POSITION_IDS,
  USE_CACHE_BRANCH,
} from '@modelgate/contracts';
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
  /**
   * Whether the graph is a merged decoder (Optimum's decoder_model_merged: an If node over the
   * no-past and with-past graphs) taking `use_cache_branch` BOOL [1]: false on a step with an
   * empty past (a prefill), true when the past has positions (a decode step).
   */
  readonly useCacheBranch: boolean;
  /**
   * image-to-text: the decoder attends to an image encoder's states, fed as
   * `encoder_hidden_states` [batch, sequence, hidden] at every step. `sequence` is -1 when neither
   * graph fixes it (it then follows the image's size; the rows of one batch must agree).
   */
  readonly crossAttention?: CrossAttention;
}

/** The shape of the encoder states a decoder with cross-attention takes, per sequence. */
export interface CrossAttention {
  /** Encoder positions (image patches and the class token), or -1 when dynamic. */
  readonly sequence: number;
  /** Width of one encoder state. */
  readonly hidden: number;
}

/** The inputs and outputs of one graph. */
export interface GraphSignature {
  readonly inputs: readonly TensorDeclaration[];
  readonly outputs: readonly TensorDeclaration[];
}

// The export's tensor names (the decoder's input for the encoder's states, the encoder's image
// input and its output), named once in contracts; re-exported for the worker's modules.
export { ENCODER_HIDDEN_STATES, LAST_HIDDEN_STATE, PIXEL_VALUES, USE_CACHE_BRANCH };

/**
 * The layout of a decoder graph, or an error message saying why it is not one the worker can
 * run: inputs `input_ids` and `attention_mask`, `past_key_values.{0..L-1}.key/value` FP32 of rank
 * 4 with static heads and head size, and outputs `logits` and `present.{i}.key/value`;
 * `position_ids` and a merged decoder's `use_cache_branch` (BOOL [1]) are optional. With an
 * image `encoder` (image-to-text) the decoder must take `encoder_hidden_states` in the shape of
 * the encoder's `last_hidden_state`; without one it must not take them.
 */
export function decoderLayoutOf(
  inputs: readonly TensorDeclaration[],
  outputs: readonly TensorDeclaration[],
  encoder?: GraphSignature,
): DecoderLayout | string {
  const layout = selfAttentionLayoutOf(inputs, outputs);
  if (typeof layout === 'string') return layout;
  const states = inputs.find((input) => input.name === ENCODER_HIDDEN_STATES);
  if (encoder === undefined) {
    if (states === undefined) return layout;
    return `the decoder takes '${ENCODER_HIDDEN_STATES}' (cross-attention on an encoder's states): serve it as an image-to-text model with its encoder`;
  }
  if (states === undefined) {
    return `an image-to-text model's decoder must take '${ENCODER_HIDDEN_STATES}' [batch, encoder_sequence, hidden]; this one does not`;
  }
  const crossAttention = crossAttentionOf(states, encoder);
  return typeof crossAttention === 'string' ? crossAttention : { ...layout, crossAttention };
}

/**
 * The cross-attention shape from the decoder's `encoder_hidden_states` and the image encoder's
 * `pixel_values` → `last_hidden_state`, or why they do not fit together.
 */
function crossAttentionOf(states: TensorDeclaration, encoder: GraphSignature): CrossAttention | string {
  const pixels = encoder.inputs.find((input) => input.name === PIXEL_VALUES);
  if (pixels?.datatype !== 'FP32' || pixels.dims.length !== 4) {
    return `the image encoder must take '${PIXEL_VALUES}' FP32 [batch, channels, height, width]`;
  }
  const extra = encoder.inputs.filter((input) => input.name !== PIXEL_VALUES).map((input) => input.name);
  if (extra.length > 0)
    return `the image encoder takes inputs besides '${PIXEL_VALUES}': ${extra.join(', ')}`;
  const hidden = encoder.outputs.find((output) => output.name === LAST_HIDDEN_STATE);
  if (hidden?.datatype !== 'FP32' || hidden.dims.length !== 3) {
    return `the image encoder must give '${LAST_HIDDEN_STATE}' FP32 [batch, sequence, hidden]`;
  }
  if (states.datatype !== 'FP32' || states.dims.length !== 3) {
    return `the decoder's '${ENCODER_HIDDEN_STATES}' must be FP32 [batch, encoder_sequence, hidden]`;
  }
  const agreed = (axis: number, what: string): number | string => {
    const [ours = -1, theirs = -1] = [hidden.dims[axis], states.dims[axis]];
    if (ours >= 0 && theirs >= 0 && ours !== theirs) {
      return `the image encoder's '${LAST_HIDDEN_STATE}' has ${what} ${ours} but the decoder's '${ENCODER_HIDDEN_STATES}' takes ${theirs}`;
    }
    return Math.max(ours, theirs);
  };
  const sequence = agreed(1, 'sequence');
  if (typeof sequence === 'string') return sequence;
  const width = agreed(2, 'hidden size');
  if (typeof width === 'string') return width;
  if (width < 1)
    return `the hidden size of '${ENCODER_HIDDEN_STATES}' must be static in the encoder or the decoder`;
  return { sequence, hidden: width };
}

/** The cache layout of a decoder graph, or why it is not a decoder with past the worker can run. */
function selfAttentionLayoutOf(
  inputs: readonly TensorDeclaration[],
  outputs: readonly TensorDeclaration[],
): DecoderLayout | string {
  const names = new Set(inputs.map((input) => input.name));
  for (const required of ['input_ids', 'attention_mask']) {
    if (!names.has(required)) return `a text-generation model needs an input '${required}'`;
  }
  if (!outputs.some((output) => output.name === 'logits'))
    return "a text-generation model needs an output 'logits'";
  const pasts = inputs.filter((input) => PAST_KEY_VALUES_INPUT.test(input.name));
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
  const branch = inputs.find((input) => input.name === USE_CACHE_BRANCH);
  if (
    branch !== undefined &&
    (branch.datatype !== 'BOOL' || branch.dims.length !== 1 || branch.dims[0] === 0)
  )
    return `input '${USE_CACHE_BRANCH}' must be BOOL [1] (a merged decoder's branch choice); the graph declares ${branch.datatype} ${JSON.stringify(branch.dims)}`;
  return {
    layers,
    heads,
    headSize,
    hasPositionIds: names.has(POSITION_IDS),
    useCacheBranch: branch !== undefined,
  };
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
