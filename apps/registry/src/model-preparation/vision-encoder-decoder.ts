/**
 * image-to-text: what preparation checks of a Hugging Face vision-encoder-decoder export beyond
 * the decoder checks it shares with text-generation (decoder-export.ts): the vision encoder's
 * tensors, that the decoder's cross-attention reads states as wide as the encoder gives, and the
 * config.json facts generation starts from.
 */
import {
  type TensorMetadata,
  DECODER_MODEL_FILE,
  ENCODER_HIDDEN_STATES,
  ENCODER_MODEL_FILE,
  LAST_HIDDEN_STATE,
} from '@modelgate/contracts';
import { readCaptionDecoding } from '@modelgate/generation';
import { checkPixelInputs } from './image-io.js';
import { describeTensors } from '@modelgate/contracts';

/** How preparation names image-to-text's two graphs in its reasons. */
export const ENCODER_LABEL = ENCODER_MODEL_FILE;
export const DECODER_LABEL = DECODER_MODEL_FILE;

/**
 * What keeps a graph from being image-to-text's encoder, as sentences a person can act on; empty
 * when it takes FP32 `pixel_values` [batch, 3, height, width] only and outputs FP32
 * `last_hidden_state` [batch, sequence, hidden].
 */
export function checkVisionEncoderIo(
  inputs: readonly TensorMetadata[],
  outputs: readonly TensorMetadata[],
): string[] {
  const problems = checkPixelInputs('image-to-text', inputs, 'encoder');
  const hidden = outputs.find((output) => output.name === LAST_HIDDEN_STATE);
  if (hidden === undefined || hidden.datatype !== 'FP32' || hidden.dims.length !== 3) {
    problems.push(
      `task image-to-text needs an encoder with an FP32 output named ${LAST_HIDDEN_STATE} ` +
        `[batch, sequence, hidden] (the states the decoder attends to); the encoder has outputs ${describeTensors(outputs)}`,
    );
  }
  return problems;
}

/**
 * Every problem of an opened encoder graph: non-tensor inputs or outputs, its tensors
 * (checkVisionEncoderIo), and whether the decoder reads states as wide as it gives.
 */
export function checkEncoderGraph(
  encoder: {
    inputs: readonly TensorMetadata[];
    outputs: readonly TensorMetadata[];
    nonTensors: readonly string[];
  },
  decoderInputs: readonly TensorMetadata[],
): string[] {
  const width = checkCrossAttentionWidth(encoder.outputs, decoderInputs);
  return [
    ...encoder.nonTensors.map(
      (name) => `${ENCODER_LABEL}: ${name} is not a tensor; only tensor inputs and outputs can be served`,
    ),
    ...checkVisionEncoderIo(encoder.inputs, encoder.outputs),
    ...(width === undefined ? [] : [width]),
  ];
}

/**
 * A problem when the decoder's `encoder_hidden_states` is not as wide as the encoder's
 * `last_hidden_state` (both static); undefined when they fit or cannot be told.
 */
export function checkCrossAttentionWidth(
  encoderOutputs: readonly TensorMetadata[],
  decoderInputs: readonly TensorMetadata[],
): string | undefined {
  const given = encoderOutputs.find((output) => output.name === LAST_HIDDEN_STATE)?.dims[2];
  const read = decoderInputs.find((input) => input.name === ENCODER_HIDDEN_STATES)?.dims[2];
  if (given === undefined || read === undefined || given < 0 || read < 0 || given === read) return undefined;
  return (
    `the encoder's ${LAST_HIDDEN_STATE} has hidden size ${given} but the decoder's ${ENCODER_HIDDEN_STATES} ` +
    `takes ${read} (the two graphs belong to different models?)`
  );
}

/** The decoder's sub-config of a vision-encoder-decoder config.json (`decoder`); undefined when absent. */
export function decoderConfigOf(config: unknown): unknown {
  if (typeof config !== 'object' || config === null) return undefined;
  const decoder = (config as { decoder?: unknown }).decoder;
  return typeof decoder === 'object' && decoder !== null && !Array.isArray(decoder) ? decoder : undefined;
}

/**
 * What config.json and generation_config.json lack for image-to-text, judged by the rule the
 * gateway decodes with (readCaptionDecoding: decoder_start_token_id, else bos_token_id, after
 * transformers.js' merge of the configs; eos ids well formed), and a start token outside the
 * model's vocabulary when that is known.
 */
export function checkDecoderStart(
  config: unknown,
  generationConfig: unknown,
  vocabSize: number | undefined,
): string[] {
  const decoding = readCaptionDecoding(config, generationConfig);
  if (typeof decoding === 'string') return [`task image-to-text: ${decoding}`];
  const start = decoding.decoderStartTokenId;
  if (vocabSize !== undefined && start >= vocabSize) {
    return [`the decoder's start token ${start} is not a token of the model (vocabulary of ${vocabSize})`];
  }
  return [];
}
