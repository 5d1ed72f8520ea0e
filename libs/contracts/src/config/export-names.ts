/**
 * Names in a Hugging Face ONNX export (Optimum's layout, as transformers.js loads it) that modelgate
 * reads: the graph files of a vision-encoder-decoder export and the tensors that join its parts.
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
