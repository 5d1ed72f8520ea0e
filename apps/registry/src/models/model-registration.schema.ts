import {
  artifactRefSchema,
  batchingSchema,
  MODEL_VERSION_PATTERN,
  modelTaskSchema,
  resourceNameSchema,
  runtimeSchema,
} from '@modelgate/contracts';
import { z } from 'zod';

/** A model version in a request: "3" or 3. */
export const versionInputSchema = z
  .union(
    [
      z.string().regex(MODEL_VERSION_PATTERN, 'must be a positive integer, e.g. 3 or "3"'),
      z.int().min(1).max(999_999_999),
    ],
    { error: 'must be a positive integer, e.g. 3 or "3"' },
  )
  .transform(Number);

/** Fields shared by JSON registration and upload. */
const modelSettingsShape = {
  /** Model name; versions of one name share it. */
  name: resourceNameSchema,
  /** Version; the next free one for the name when omitted. */
  version: versionInputSchema.optional(),
  /** What the model does. */
  task: modelTaskSchema,
  /** Class labels by output index; read from the tokenizer bundle's config.json when omitted. */
  labels: z.array(z.string().min(1)).min(1).optional(),
  /** Dynamic batching limits. */
  batching: batchingSchema.prefault({}),
  /** Runtime settings. */
  runtime: runtimeSchema.prefault({}),
  /** Worker group that loads the model. */
  workerGroup: resourceNameSchema.default('default'),
};

/** `POST /v1/models`: register a model whose files are already reachable by URI. */
export const registerModelSchema = z
  .strictObject({
    ...modelSettingsShape,
    /** The .onnx file. */
    artifact: artifactRefSchema,
    /** The tokenizer bundle (ustar of tokenizer.json, tokenizer_config.json, config.json, ...). */
    tokenizer: artifactRefSchema.optional(),
  })
  .superRefine((input, ctx) => {
    if (input.task !== 'raw' && input.tokenizer === undefined) {
      ctx.addIssue({ code: 'custom', path: ['tokenizer'], message: `is required for task ${input.task}` });
    }
  });

/** A validated registration. */
export type RegisterModelInput = z.output<typeof registerModelSchema>;

/** The form fields of `POST /v1/models/upload` (batching, runtime and labels as JSON strings). */
export const uploadFieldsSchema = z.strictObject(modelSettingsShape);

/** Validated upload fields. */
export type UploadFields = z.output<typeof uploadFieldsSchema>;
