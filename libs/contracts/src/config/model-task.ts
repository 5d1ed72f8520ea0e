import { z } from 'zod';

/**
 * What a model or endpoint does. `text-classification` covers sentence-pair classification
 * (requests carry `text_pair`); `question-answering` extracts answer spans from a context (long
 * contexts become overlapping windows); `text-ranking` scores (query, text) pairs with a cross-encoder;
 * `text-generation` continues a prompt with a decoder model (KV cache, continuous batching, streaming);
 * `image-classification` labels an image (FP32 `pixel_values` [batch, channels, height, width] in,
 * `logits` [batch, labels] out; the image processor's settings in preprocessor_config.json);
 * `image-to-text` captions an image with a vision encoder (`pixel_values` → `last_hidden_state`) and a
 * text decoder with past that attends to the encoder's states (`encoder_hidden_states`), decoded as
 * text-generation is (the Hugging Face vision-encoder-decoder export: encoder_model.onnx +
 * decoder_model_merged.onnx);
 * `raw` passes tensors through without pre- or post-processing.
 */
export const MODEL_TASKS = [
  'text-classification',
  'feature-extraction',
  'question-answering',
  'token-classification',
  'text-ranking',
  'text-generation',
  'image-classification',
  'image-to-text',
  'raw',
] as const;

/** A task name. */
export const modelTaskSchema = z.enum(MODEL_TASKS);

/** One of MODEL_TASKS. */
export type ModelTask = z.infer<typeof modelTaskSchema>;

/** Tasks that generate tokens with a decoder and its KV cache (continuous batching, streaming). */
export const GENERATIVE_TASKS = ['text-generation', 'image-to-text'] as const satisfies readonly ModelTask[];

/** Whether `task` generates tokens (text-generation, image-to-text): its batching fields mean slots, waiting sequences and a cache budget. */
export function isGenerativeTask(task: ModelTask): task is (typeof GENERATIVE_TASKS)[number] {
  return (GENERATIVE_TASKS as readonly ModelTask[]).includes(task);
}

/**
 * Why a raw endpoint cannot serve a model of `modelTask`, or undefined when it can: a raw
 * endpoint answers with one model call (ModelInfer), and a generative model decodes token by
 * token. The registry refuses such a route; a gateway that meets one (a static config file, or a
 * route stored before the refusal) reports the endpoint unservable and answers its calls with this.
 */
export function rawEndpointRefusal(modelTask: ModelTask): string | undefined {
  if (!isGenerativeTask(modelTask)) return undefined;
  const a = modelTask === 'image-to-text' ? 'an' : 'a';
  return (
    `a raw endpoint cannot serve ${a} ${modelTask} model: it answers with one model call, and ` +
    `${modelTask} decodes token by token; bind the model to ${a} ${modelTask} endpoint`
  );
}

/** Whether an endpoint of `endpointTask` can route to a model of `modelTask`: same task, or a raw endpoint. */
export function isTaskCompatible(endpointTask: ModelTask, modelTask: ModelTask): boolean {
  return endpointTask === 'raw' || endpointTask === modelTask;
}

/**
 * The files a model of `task` cannot do without in its tokenizer bundle: tokenizer.json for the
 * text tasks, preprocessor_config.json (the image processor's settings) for image-classification,
 * both for image-to-text, none for raw.
 */
export function requiredBundleFiles(task: ModelTask): readonly string[] {
  if (task === 'raw') return [];
  if (task === 'image-classification') return ['preprocessor_config.json'];
  if (task === 'image-to-text') return ['tokenizer.json', 'preprocessor_config.json'];
  return ['tokenizer.json'];
}

/** Tasks whose answers name classes, so a model of one keeps its labels (given or read at preparation). */
export const LABELLED_TASKS = [
  'text-classification',
  'token-classification',
  'image-classification',
] as const satisfies readonly ModelTask[];

/** Whether a model of `task` has class labels (text-, token- and image-classification). */
export function hasLabels(task: ModelTask): boolean {
  return isOneOf(LABELLED_TASKS, task);
}

/**
 * Tasks whose shadow answers the gateways compare with the primary's row by row, the agreement a
 * rollout's minAgreement judges: the top class (text- and image-classification) or the generated
 * text (text-generation, image-to-text).
 */
export const AGREEMENT_TASKS = [
  'text-classification',
  'image-classification',
  'text-generation',
  'image-to-text',
] as const satisfies readonly ModelTask[];

/** Whether a rollout on an endpoint of `task` measures agreement (AGREEMENT_TASKS). */
export function measuresAgreement(task: ModelTask): boolean {
  return isOneOf(AGREEMENT_TASKS, task);
}

function isOneOf(tasks: readonly ModelTask[], task: ModelTask): boolean {
  return tasks.includes(task);
}
