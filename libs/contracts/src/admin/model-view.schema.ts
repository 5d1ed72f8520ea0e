import { z } from 'zod';
import { batchingSchema, generationFactsSchema, runtimeSchema } from '../config/model-spec.schema.js';
import { modelTaskSchema } from '../config/model-task.js';
import { artifactRefSchema, externalDataRefSchema } from '../config/spec-fields.schema.js';
import { tensorMetadataSchema } from '../config/tensor-metadata.schema.js';

/** Where a model version is in its preparation (DESIGN §3.6); only READY models are routed. */
export const MODEL_STATUSES = ['PENDING', 'PREPARING', 'READY', 'FAILED'] as const;

/** One of MODEL_STATUSES. */
export type ModelStatus = (typeof MODEL_STATUSES)[number];

/** How long preparation's steps took, in milliseconds. */
export const preparationTimingsSchema = z.object({
  importMs: z
    .number()
    .optional()
    .describe('Copying the files from their source (hf://) into the artifact store; absent otherwise'),
  fetchMs: z.number().describe('Fetching the files from the artifact store'),
  openMs: z.number().describe('Opening the onnxruntime session'),
  warmUpMs: z.number().optional().describe('Warm-up runs; absent when there were none'),
  totalMs: z.number().describe('The whole preparation'),
});

/** How long preparation's steps took, in milliseconds. */
export type PreparationTimings = z.infer<typeof preparationTimingsSchema>;

/** A model version as the admin API shows it (`GET /v1/models/:name/:version`, and every model answer). */
export const modelViewSchema = z.object({
  id: z.string().describe('`name:version`'),
  name: z.string().describe('Model name'),
  version: z.string().describe('Version, a positive integer as a string'),
  task: modelTaskSchema.describe('What the model does'),
  status: z
    .enum(MODEL_STATUSES)
    .describe('PENDING → PREPARING → READY or FAILED; only READY models are routed'),
  statusReason: z
    .string()
    .nullable()
    .describe('Why it FAILED, or how preparation is going; null when there is nothing to say'),
  workerGroup: z.string().describe('Worker group that loads the model'),
  source: z
    .string()
    .nullable()
    .describe(
      'Where the files were imported from (`hf://org/name@revision`); null when registered by URI or upload',
    ),
  artifact: artifactRefSchema
    .nullable()
    .describe(
      'The .onnx file (image-to-text: the decoder, decoder_model_merged.onnx); null until the import from `source` is done',
    ),
  encoder: artifactRefSchema
    .nullable()
    .describe(
      'image-to-text: the vision encoder (encoder_model.onnx); null for other tasks and until the import from `source` is done',
    ),
  externalData: z
    .array(externalDataRefSchema)
    .describe('ONNX external data files placed beside the .onnx file under their names'),
  tokenizer: artifactRefSchema.nullable().describe('The tokenizer bundle; null for raw models'),
  labels: z
    .array(z.string())
    .nullable()
    .describe('Class labels by output index; null when the model has none'),
  inputs: z.array(tensorMetadataSchema).describe("The graph's inputs; empty until prepared"),
  outputs: z.array(tensorMetadataSchema).describe("The graph's outputs; empty until prepared"),
  batching: batchingSchema.describe('Dynamic batching limits'),
  runtime: runtimeSchema.describe('onnxruntime settings'),
  timings: preparationTimingsSchema.nullable().describe("How long preparation's steps took; null before"),
  generation: generationFactsSchema
    .optional()
    .describe(
      'text-generation and image-to-text, once prepared: the positions and vocabulary preparation read, and (text-generation) the generation_config.json defaults that apply and the fields that do not',
    ),
  preparedAt: z.string().nullable().describe('ISO time preparation finished; null before'),
  createdAt: z.string().describe('ISO time it was registered'),
  updatedAt: z.string().describe('ISO time it last changed'),
});

/** A model version as the admin API shows it. */
export type ModelView = z.infer<typeof modelViewSchema>;
