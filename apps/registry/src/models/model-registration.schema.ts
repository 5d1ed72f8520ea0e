import {
  artifactRefSchema,
  batchingSchema,
  externalDataListSchema,
  MODEL_VERSION_PATTERN,
  modelTaskSchema,
  resourceNameSchema,
  runtimeSchema,
} from '@modelgate/contracts';
import { formatHfUri, isHfUri, parseHfUri } from '@modelgate/model-store';
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

/**
 * `POST /v1/models`: register a model whose files are already reachable by URI (`artifact`, with
 * `externalData` and `tokenizer`), or one whose files preparation imports from the Hugging Face
 * Hub (`source`: hf://org/name[@revision]; the registry computes the digests).
 */
export const registerModelSchema = z
  .strictObject({
    ...modelSettingsShape,
    /** The .onnx file; not with `source`. */
    artifact: artifactRefSchema.optional(),
    /** ONNX external data files the graph reads (e.g. model.onnx_data), with `artifact`. @defaultValue [] */
    externalData: externalDataListSchema.default([]),
    /** The tokenizer bundle (ustar of tokenizer.json, tokenizer_config.json, config.json, ...), with `artifact`. */
    tokenizer: artifactRefSchema.optional(),
    /**
     * `hf://org/name[@revision]` (revision `main` when left out): preparation fetches
     * onnx/model.onnx, onnx/model.onnx_data when the repository has it, and the tokenizer files
     * from the Hub (HF_ENDPOINT) into this registry's artifact store. Stored in canonical form.
     */
    source: z.string().max(400).optional(),
  })
  .superRefine((input, ctx) => {
    if (input.source !== undefined) {
      if (!isHfUri(input.source)) {
        ctx.addIssue({
          code: 'custom',
          path: ['source'],
          message: 'must be an hf://<org>/<name>[@<revision>] URI (files by URI go in artifact)',
        });
      } else {
        try {
          parseHfUri(input.source);
        } catch (error) {
          ctx.addIssue({ code: 'custom', path: ['source'], message: (error as Error).message });
        }
      }
      const given = [
        ...(input.artifact === undefined ? [] : ['artifact']),
        ...(input.tokenizer === undefined ? [] : ['tokenizer']),
        ...(input.externalData.length === 0 ? [] : ['externalData']),
      ];
      for (const key of given) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: 'comes from the source when registering from hf://; leave it out',
        });
      }
      return;
    }
    if (input.artifact === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['artifact'],
        message: 'is required: give artifact {uri, sha256}, or source hf://<org>/<name>[@<revision>]',
      });
      return;
    }
    if (input.task !== 'raw' && input.tokenizer === undefined) {
      ctx.addIssue({ code: 'custom', path: ['tokenizer'], message: `is required for task ${input.task}` });
    }
  })
  .transform((input) =>
    input.source === undefined ? input : { ...input, source: formatHfUri(parseHfUri(input.source)) },
  );

/** A validated registration. */
export type RegisterModelInput = z.output<typeof registerModelSchema>;

/** The form fields of `POST /v1/models/upload` (batching, runtime and labels as JSON strings). */
export const uploadFieldsSchema = z.strictObject(modelSettingsShape);

/** Validated upload fields. */
export type UploadFields = z.output<typeof uploadFieldsSchema>;
