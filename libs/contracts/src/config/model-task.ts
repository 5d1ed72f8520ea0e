import { z } from 'zod';

/**
 * What a model or endpoint does. `text-classification` covers sentence-pair classification
 * (requests carry `text_pair`); `question-answering` extracts answer spans from a context (long
 * contexts become overlapping windows); `text-ranking` scores (query, text) pairs with a cross-encoder;
 * `text-generation` continues a prompt with a decoder model (KV cache, continuous batching, streaming);
 * `image-classification` labels an image (FP32 `pixel_values` [batch, channels, height, width] in,
 * `logits` [batch, labels] out; the image processor's settings in preprocessor_config.json);
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
  'raw',
] as const;

/** A task name. */
export const modelTaskSchema = z.enum(MODEL_TASKS);

/** One of MODEL_TASKS. */
export type ModelTask = z.infer<typeof modelTaskSchema>;

/** Whether an endpoint of `endpointTask` can route to a model of `modelTask`: same task, or a raw endpoint. */
export function isTaskCompatible(endpointTask: ModelTask, modelTask: ModelTask): boolean {
  return endpointTask === 'raw' || endpointTask === modelTask;
}

/**
 * The files a model of `task` cannot do without in its tokenizer bundle: tokenizer.json for the
 * text tasks, preprocessor_config.json (the image processor's settings) for image-classification,
 * none for raw.
 */
export function requiredBundleFiles(task: ModelTask): readonly string[] {
  if (task === 'raw') return [];
  if (task === 'image-classification') return ['preprocessor_config.json'];
  return ['tokenizer.json'];
}
