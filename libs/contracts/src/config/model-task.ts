import { z } from 'zod';

/**
 * What a model or endpoint does. `text-classification` covers sentence-pair classification
 * (requests carry `text_pair`); `question-answering` extracts answer spans from a context (long
 * contexts become overlapping windows); `text-ranking` scores (query, text) pairs with a cross-encoder;
 * `text-generation` continues a prompt with a decoder model (KV cache, continuous batching, streaming);
 * `raw` passes tensors through without pre- or post-processing.
 */
export const MODEL_TASKS = [
  'text-classification',
  'feature-extraction',
  'question-answering',
  'token-classification',
  'text-ranking',
  'text-generation',
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
