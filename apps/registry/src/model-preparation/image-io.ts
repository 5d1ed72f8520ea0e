import { type TensorMetadata } from '@modelgate/contracts';

/** The image input of a Hugging Face vision export (Optimum names it so). */
export const PIXEL_VALUES = 'pixel_values';
/** Channels the gateway's image preprocessing feeds: RGB. */
const RGB_CHANNELS = 3;

function describe(tensors: readonly TensorMetadata[]): string {
  if (tensors.length === 0) return 'none';
  return tensors.map((t) => `${t.name} (${t.datatype} [${t.dims.join(', ')}])`).join(', ');
}

/**
 * What keeps a model from serving image-classification, as sentences a person can act on; empty
 * when it fits. It needs one FP32 input `pixel_values` [batch, 3, height, width] (channels may be
 * symbolic; the gateway feeds RGB) and nothing else, and an FP32 `logits` [batch, labels].
 */
export function checkImageClassificationIo(
  inputs: readonly TensorMetadata[],
  outputs: readonly TensorMetadata[],
): string[] {
  const problems: string[] = [];
  const pixels = inputs.find((input) => input.name === PIXEL_VALUES);
  if (pixels === undefined) {
    problems.push(
      `task image-classification needs an input named ${PIXEL_VALUES}; the model has inputs ${describe(inputs)}`,
    );
  } else if (pixels.datatype !== 'FP32' || pixels.dims.length !== 4) {
    problems.push(
      `task image-classification needs ${PIXEL_VALUES} to be FP32 [batch, channels, height, width]; ` +
        `the model declares ${describe([pixels])}`,
    );
  } else if (pixels.dims[1] !== RGB_CHANNELS && (pixels.dims[1] ?? -1) >= 0) {
    problems.push(
      `task image-classification feeds RGB images (3 channels); the model's ${PIXEL_VALUES} has ` +
        `${pixels.dims[1]} channels`,
    );
  }
  const others = inputs.filter((input) => input.name !== PIXEL_VALUES);
  if (others.length > 0) {
    problems.push(
      `task image-classification feeds only ${PIXEL_VALUES}; the model also needs ${describe(others)} (register it as raw)`,
    );
  }
  const logits = outputs.find((output) => output.name === 'logits');
  if (logits === undefined || logits.datatype !== 'FP32' || logits.dims.length !== 2) {
    problems.push(
      `task image-classification needs an FP32 output named logits of shape [batch, labels]; ` +
        `the model has outputs ${describe(outputs)}`,
    );
  }
  return problems;
}

/**
 * What the tokenizer bundle lacks for image-classification: preprocessor_config.json, the image
 * processor's resize, rescale and normalization settings. `preprocessorConfig` is the parsed file,
 * undefined when absent or not JSON.
 */
export function checkImageBundle(preprocessorConfig: unknown): string[] {
  if (
    typeof preprocessorConfig === 'object' &&
    preprocessorConfig !== null &&
    !Array.isArray(preprocessorConfig)
  )
    return [];
  return [
    "task image-classification needs preprocessor_config.json (a JSON object: the image processor's size, " +
      'rescale and normalization) in the tokenizer bundle; a Hugging Face export keeps it beside config.json',
  ];
}
