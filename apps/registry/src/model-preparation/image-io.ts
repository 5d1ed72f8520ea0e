import { type ImageFacts, type TensorMetadata, isModelgateError, PIXEL_VALUES } from '@modelgate/contracts';
import { pixelValuesGeometry, readPreprocessorConfig } from '@modelgate/processing';
import { describeTensors } from '@modelgate/contracts';

/** Tasks whose model (image-to-text: its encoder) takes an image as pixel_values. */
type ImageTask = 'image-classification' | 'image-to-text';

/** Channels the gateway's image preprocessing feeds: RGB. */
const RGB_CHANNELS = 3;

/**
 * What keeps a model from serving image-classification, as sentences a person can act on; empty
 * when it fits. It needs one FP32 input `pixel_values` [batch, 3, height, width] (channels may be
 * symbolic; the gateway feeds RGB) and nothing else, and an FP32 `logits` [batch, labels].
 */
export function checkImageClassificationIo(
  inputs: readonly TensorMetadata[],
  outputs: readonly TensorMetadata[],
): string[] {
  const problems = checkPixelInputs('image-classification', inputs, 'model');
  const logits = outputs.find((output) => output.name === 'logits');
  if (logits === undefined || logits.datatype !== 'FP32' || logits.dims.length !== 2) {
    problems.push(
      `task image-classification needs an FP32 output named logits of shape [batch, labels]; ` +
        `the model has outputs ${describeTensors(outputs)}`,
    );
  }
  return problems;
}

/**
 * Problems of an image model's inputs (`graph` names it in messages: "model", "encoder"): one FP32
 * `pixel_values` [batch, 3, height, width] (channels may be symbolic; the gateway feeds RGB) and
 * nothing else.
 */
export function checkPixelInputs(
  task: ImageTask,
  inputs: readonly TensorMetadata[],
  graph: string,
): string[] {
  const problems: string[] = [];
  const pixels = inputs.find((input) => input.name === PIXEL_VALUES);
  if (pixels === undefined) {
    problems.push(
      `task ${task} needs an input named ${PIXEL_VALUES}; the ${graph} has inputs ${describeTensors(inputs)}`,
    );
  } else if (pixels.datatype !== 'FP32' || pixels.dims.length !== 4) {
    problems.push(
      `task ${task} needs ${PIXEL_VALUES} to be FP32 [batch, channels, height, width]; ` +
        `the ${graph} declares ${describeTensors([pixels])}`,
    );
  } else if (pixels.dims[1] !== RGB_CHANNELS && (pixels.dims[1] ?? -1) >= 0) {
    problems.push(
      `task ${task} feeds RGB images (3 channels); the ${graph}'s ${PIXEL_VALUES} has ${pixels.dims[1]} channels`,
    );
  }
  const others = inputs.filter((input) => input.name !== PIXEL_VALUES);
  if (others.length > 0) {
    problems.push(
      `task ${task} feeds only ${PIXEL_VALUES}; the ${graph} also needs ${describeTensors(others)}` +
        (task === 'image-classification' ? ' (register it as raw)' : ''),
    );
  }
  return problems;
}

/**
 * What the tokenizer bundle lacks for an image task: preprocessor_config.json, the image
 * processor's resize, rescale and normalization settings. `preprocessorConfig` is the parsed file,
 * undefined when absent or not JSON.
 */
export function checkImageBundle(
  preprocessorConfig: unknown,
  task: ImageTask = 'image-classification',
): string[] {
  if (
    typeof preprocessorConfig === 'object' &&
    preprocessorConfig !== null &&
    !Array.isArray(preprocessorConfig)
  )
    return [];
  return [
    `task ${task} needs preprocessor_config.json (a JSON object: the image processor's size, ` +
      'rescale and normalization) in the tokenizer bundle; a Hugging Face export keeps it beside config.json',
  ];
}

/**
 * An image model's preprocessor_config.json read as the gateway will read it
 * (readPreprocessorConfig): `problems` when it is missing, when the gateway would refuse a field
 * (so the model fails preparation instead of every request), or when the size it gives every
 * image is one the graph's static `pixel_values` dims cannot take; `facts`, that size, when the
 * processor fixes one (ModelSpec.image: the worker warms dynamic-size exports up on it).
 */
export function readImageProcessing(
  task: ImageTask,
  preprocessorConfig: unknown,
  inputs: readonly TensorMetadata[],
): { problems: string[]; facts?: ImageFacts } {
  const missing = checkImageBundle(preprocessorConfig, task);
  if (missing.length > 0) return { problems: missing };
  let facts: ImageFacts | undefined;
  try {
    facts = pixelValuesGeometry(readPreprocessorConfig(preprocessorConfig));
  } catch (error) {
    if (!isModelgateError(error)) throw error;
    const issues = (error.details.issues ?? []).map((issue) => `${issue.path}: ${issue.message}`);
    return {
      problems: [`preprocessor_config.json: ${issues.length > 0 ? issues.join('; ') : error.message}`],
    };
  }
  const graph = inputs.find((input) => input.name === PIXEL_VALUES)?.dims.slice(1) ?? [];
  if (facts === undefined) {
    // A caption's decoder attends to every encoder state, unmasked: sequences decoding together
    // need images of one size, which such a processor does not give.
    const varies = task === 'image-to-text' && graph.slice(1).some((dim) => dim < 0);
    return {
      problems: varies
        ? [
            'task image-to-text needs an image processor that gives every image one size (a center crop or ' +
              'an exact height × width resize in preprocessor_config.json), or an encoder with static image dims',
          ]
        : [],
    };
  }
  const made = [facts.channels, facts.height, facts.width];
  if (graph.some((dim, axis) => dim >= 0 && dim !== made[axis])) {
    return {
      problems: [
        `preprocessor_config.json makes ${made.join('×')} images but ${PIXEL_VALUES} takes ` +
          `${graph.map((dim) => (dim >= 0 ? dim : '?')).join('×')}`,
      ],
    };
  }
  return { problems: [], facts };
}
