import { z } from 'zod';
import { formatHfUri, isHfUri, parseHfUri } from '../config/hf-uri.js';
import {
  batchingSchema,
  checkBatchingForTask,
  checkQueueDelay,
  runtimeSchema,
} from '../config/model-spec.schema.js';
import { type ModelTask, hasLabels, isGenerativeTask, modelTaskSchema } from '../config/model-task.js';
import {
  artifactRefSchema,
  externalDataRequestListSchema,
  labelsSchema,
  MODEL_VERSION_PATTERN,
  resourceNameSchema,
} from '../config/spec-fields.schema.js';

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

/** Why a raw model is given no tokenizer: it would be stored and never used. */
export const RAW_TAKES_NO_TOKENIZER =
  'is not used by a raw model (it is served as tensors, never tokenized); leave it out, or register the model with its task';

/** Fields shared by JSON registration and upload. */
const modelSettingsShape = {
  name: resourceNameSchema.describe('Model name; versions of one name share it'),
  version: versionInputSchema.optional().describe('Version; the next free one for the name when omitted'),
  task: modelTaskSchema.describe('What the model does'),
  labels: labelsSchema
    .optional()
    .describe(
      "Class labels by output index, each once; read from the tokenizer bundle's config.json when omitted",
    ),
  batching: batchingSchema
    .strict()
    .prefault({})
    .describe(
      'Batching limits: batch size and tokens, queue delay and size, timeout. text-generation: maxBatchSize = ' +
        'sequences decoding together, maxQueueSize = sequences waiting, maxBatchTokens = KV-cache budget in tokens',
    ),
  runtime: runtimeSchema
    .strict()
    .prefault({})
    .describe('onnxruntime settings: execution providers, instances, threads'),
  workerGroup: resourceNameSchema.default('default').describe('Worker group that loads the model'),
};

/**
 * `POST /v1/models`: register a model whose files are already reachable by URI (`artifact`, with
 * `externalData` and `tokenizer`), or one whose files preparation imports from the Hugging Face
 * Hub (`source`: hf://org/name[@revision]; the registry computes the digests).
 */
export const registerModelSchema = z
  .strictObject({
    ...modelSettingsShape,
    artifact: artifactRefSchema
      .strict()
      .optional()
      .describe(
        'The .onnx file `{uri, sha256}` (image-to-text: the decoder with past, decoder_model_merged.onnx); required unless `source` is given',
      ),
    encoder: artifactRefSchema
      .strict()
      .optional()
      .describe(
        'image-to-text only, and required there with `artifact`: the vision encoder `{uri, sha256}` ' +
          '(encoder_model.onnx: pixel_values in, last_hidden_state out)',
      ),
    externalData: externalDataRequestListSchema
      .default([])
      .describe('ONNX external data files the graph reads (e.g. model.onnx_data), with `artifact`'),
    tokenizer: artifactRefSchema
      .strict()
      .optional()
      .describe(
        'The tokenizer bundle (ustar of tokenizer.json, tokenizer_config.json, config.json, preprocessor_config.json...), with `artifact`; ' +
          'required unless task is raw',
      ),
    // Stored in canonical form (revision spelled out).
    source: z
      .string()
      .max(400)
      .optional()
      .describe(
        '`hf://org/name[@revision]` (revision `main` when left out): preparation fetches onnx/model.onnx, ' +
          'onnx/model.onnx_data when the repository has it (image-to-text: onnx/encoder_model.onnx and ' +
          'onnx/decoder_model_merged.onnx), and the tokenizer files from the Hub; not with `artifact`',
      ),
  })
  .superRefine((input, ctx) => {
    checkBatching(input, ctx);
    checkLabelsForTask(input.task, input.labels, ctx);
    if (input.encoder !== undefined && input.task !== 'image-to-text') {
      ctx.addIssue({
        code: 'custom',
        path: ['encoder'],
        message: `is for image-to-text models only (this one is ${input.task}); leave it out`,
      });
    }
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
        ...(input.encoder === undefined || input.task !== 'image-to-text' ? [] : ['encoder']),
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
    if (input.task === 'raw' && input.tokenizer !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['tokenizer'], message: RAW_TAKES_NO_TOKENIZER });
    }
    if (input.task === 'image-to-text' && input.encoder === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['encoder'],
        message:
          'is required for task image-to-text: give encoder {uri, sha256} (encoder_model.onnx) beside artifact (decoder_model_merged.onnx)',
      });
    }
    if (input.task === 'image-to-text' && input.externalData.length > 0) {
      // The two graphs share one directory on the worker; external data of either is not placed for preparation.
      ctx.addIssue({
        code: 'custom',
        path: ['externalData'],
        message:
          'is not supported for task image-to-text: give encoder_model.onnx and decoder_model_merged.onnx with their weights inside',
      });
    }
  })
  .transform((input) =>
    input.source === undefined ? input : { ...input, source: formatHfUri(parseHfUri(input.source)) },
  );

/** The body of `POST /v1/models` as a client sends it. */
export type RegisterModelRequest = z.input<typeof registerModelSchema>;

/** A validated registration. */
export type RegisterModelInput = z.output<typeof registerModelSchema>;

/**
 * The form fields of `POST /v1/models/upload` (batching, runtime and labels as JSON strings), beside
 * the files (model.onnx, tokenizer files, external data; image-to-text: encoder_model.onnx and
 * decoder_model_merged.onnx instead of model.onnx) by their names.
 */
export const uploadFieldsSchema = z.strictObject(modelSettingsShape).superRefine((fields, ctx) => {
  checkBatching(fields, ctx);
  checkLabelsForTask(fields.task, fields.labels, ctx);
});

/** The batching rules of a registration: the task's, then the queue delay's (encoders). */
function checkBatching(
  settings: { task: ModelTask; batching: z.output<typeof batchingSchema>; runtime: { instances: number } },
  ctx: z.RefinementCtx,
): void {
  checkBatchingForTask(settings.task, settings.batching, ctx);
  if (!isGenerativeTask(settings.task)) checkQueueDelay(settings.batching, settings.runtime.instances, ctx);
}

/** Labels name classes: a task without classes would store them and never use them. */
function checkLabelsForTask(
  task: ModelTask,
  labels: readonly string[] | undefined,
  ctx: z.RefinementCtx,
): void {
  if (labels !== undefined && !hasLabels(task)) {
    ctx.addIssue({
      code: 'custom',
      path: ['labels'],
      message: `name classes, which ${task} models do not have (only text-, token- and image-classification); leave them out`,
    });
  }
}

/** Validated upload fields. */
export type UploadFields = z.output<typeof uploadFieldsSchema>;

/** The query of `GET /v1/models`: `?name=` lists the versions of one model. */
export const listModelsQuerySchema = z.strictObject({ name: resourceNameSchema.optional() });

/** The path of one model version, `/v1/models/:name/:version`. */
export const modelKeySchema = z.object({ name: resourceNameSchema, version: versionInputSchema });
