/**
 * Names in a Hugging Face ONNX export (Optimum's layout, as transformers.js loads it) that modelgate
 * reads: the graph files of a vision-encoder-decoder export, the tensors that join its parts, and a
 * decoder's cache tensors.
 */

/** The vision encoder graph of an image-to-text export (under onnx/ in a Hub repository). */
export const ENCODER_MODEL_FILE = 'encoder_model.onnx';

/** The text decoder (with past) of an image-to-text export (under onnx/ in a Hub repository). */
export const DECODER_MODEL_FILE = 'decoder_model_merged.onnx';

/** An image model's input: FP32 [batch, channels, height, width]. */
export const PIXEL_VALUES = 'pixel_values';

/** An encoder's output states [batch, sequence, hidden]. */
export const LAST_HIDDEN_STATE = 'last_hidden_state';

/** The decoder input that takes the encoder's states (cross-attention). */
export const ENCODER_HIDDEN_STATES = 'encoder_hidden_states';

/**
 * A merged decoder's branch choice (Optimum's decoder_model_merged: an If node over the no-past and
 * with-past graphs), BOOL [1]: false on a prefill (empty past), true after.
 */
export const USE_CACHE_BRANCH = 'use_cache_branch';

/** A decoder export's cache inputs, `past_key_values.<layer>.key|value` [batch, heads, past sequence, head size]. */
export const PAST_KEY_VALUES_INPUT = /^past_key_values\.(\d+)\.(key|value)$/;

/** The axis of a cache input that counts past tokens. */
export const PAST_SEQUENCE_AXIS = 2;

/** True when `inputs` hold a decoder export's KV cache (any `past_key_values.*`). */
export function hasPastInputs(inputs: readonly { readonly name: string }[]): boolean {
  return inputs.some((input) => PAST_KEY_VALUES_INPUT.test(input.name));
}

/**
 * Whether a feature-extraction model's embedding comes out already pooled: the output the gateway
 * reads (`last_hidden_state`, else the first) is [batch, hidden], answered as it is, so an
 * endpoint's pooling has nothing to pool.
 */
export function givesPooledEmbedding(
  outputs: readonly { readonly name: string; readonly dims: readonly number[] }[],
): boolean {
  const read = outputs.find((output) => output.name === LAST_HIDDEN_STATE) ?? outputs[0];
  return read !== undefined && read.dims.length === 2;
}

/**
 * A decoder's positions [batch, sequence] (optional). A decoder without it numbers positions from
 * its cache's width, the same for every row of a batch.
 */
export const POSITION_IDS = 'position_ids';
