import { z } from 'zod';
import { type ModelTask, isGenerativeTask, modelTaskSchema } from './model-task.js';
import { reportDuplicates } from './report-duplicates.js';
import {
  artifactRefSchema,
  externalDataListSchema,
  formatModelId,
  labelsSchema,
  modelIdSchema,
  modelVersionSchema,
  nonNegativeIntSchema,
  positiveIntSchema,
  resourceNameSchema,
} from './spec-fields.schema.js';
import { tensorMetadataSchema } from './tensor-metadata.schema.js';
import { parseWith } from './validation-issues.js';

/**
 * The most a batch may hold when batching.maxBatchSize is not given: the graph's fixed batch where
 * it has one, 1 for a decoder without position_ids, else this (resolvedMaxBatchSize).
 */
export const DEFAULT_MAX_BATCH_SIZE = 32;

/** batching.maxBatchTokens when none is given. */
export const DEFAULT_MAX_BATCH_TOKENS = 16_384;

/**
 * Every batching field's default: the one source of the schema's defaults and of the batcher's
 * (libs/batching DEFAULT_BATCH_LIMITS), so a spec that leaves a field out batches alike everywhere.
 */
export const BATCHING_DEFAULTS = Object.freeze({
  maxBatchSize: DEFAULT_MAX_BATCH_SIZE,
  preferredBatchSizes: Object.freeze<number[]>([]),
  maxQueueDelayMicros: 2000,
  maxBatchTokens: DEFAULT_MAX_BATCH_TOKENS,
  maxPaddingRatio: 1.15,
  maxQueueSize: 256,
  defaultTimeoutMs: 10_000,
});

/**
 * Defaults of the batching fields that only the encoder batcher uses; a text-generation model
 * must leave them so (checkBatchingForTask).
 */
export const ENCODER_ONLY_BATCHING_DEFAULTS = {
  preferredBatchSizes: [...BATCHING_DEFAULTS.preferredBatchSizes] as number[],
  maxQueueDelayMicros: BATCHING_DEFAULTS.maxQueueDelayMicros,
  maxPaddingRatio: BATCHING_DEFAULTS.maxPaddingRatio,
} as const;

/**
 * Batching limits of one model (Triton's dynamic batcher vocabulary). A text-generation model
 * reads three of them in generation words: maxBatchSize = sequences decoding together,
 * maxQueueSize = sequences waiting for a slot, maxBatchTokens = KV-cache budget in tokens.
 */
export const batchingSchema = z
  .object({
    maxBatchSize: positiveIntSchema
      .optional()
      .describe(
        'Most requests (rows) the batcher puts in one model run. text-generation: most sequences decoding together (slots). ' +
          `Absent: as many as the graph takes, at most ${DEFAULT_MAX_BATCH_SIZE} (a graph with a fixed batch: its size; ` +
          'a decoder without position_ids, which decodes one sequence at a time: 1). Given, it is used as given, or refused where the graph cannot take it.',
      ),
    preferredBatchSizes: z
      .array(positiveIntSchema)
      .default([...ENCODER_ONLY_BATCHING_DEFAULTS.preferredBatchSizes])
      .describe(
        'Batch sizes the batcher dispatches as soon as it reaches them, each <= maxBatchSize. Not for text-generation.',
      ),
    maxQueueDelayMicros: nonNegativeIntSchema
      .default(ENCODER_ONLY_BATCHING_DEFAULTS.maxQueueDelayMicros)
      .describe(
        'Longest a batch waits, in microseconds, to reach one of preferredBatchSizes while another batch runs; 0 dispatches at once. ' +
          'Only with preferredBatchSizes and runtime.instances 2 or more: otherwise a batch goes as soon as an instance is free, and another value is refused. ' +
          'Not for text-generation (a sequence joins the running batch at the next decode step).',
      ),
    maxBatchTokens: positiveIntSchema
      .default(DEFAULT_MAX_BATCH_TOKENS)
      .describe(
        'Most padded tokens (rows × sequence length) in one run. text-generation: the KV-cache budget in tokens; each sequence reserves prompt + max_new_tokens and the cache is padded to its longest row, so sequences decode together while their count × the largest reservation fits.',
      ),
    maxPaddingRatio: z
      .number()
      .min(1)
      .max(1_000_000)
      .default(ENCODER_ONLY_BATCHING_DEFAULTS.maxPaddingRatio)
      .describe(
        "Length grouping: a batch's computed tokens (rows × longest row) stay within this multiple of its rows' real tokens, so short rows wait for their own batch rather than run padded to a long one. Raise it where a bigger batch beats less padding (GPUs). Not for text-generation nor image-classification (images are never padded).",
      ),
    maxQueueSize: positiveIntSchema
      .default(BATCHING_DEFAULTS.maxQueueSize)
      .describe(
        'Requests waiting beyond this are rejected with QUEUE_FULL. text-generation: most sequences waiting for a slot.',
      ),
    defaultTimeoutMs: positiveIntSchema
      .default(BATCHING_DEFAULTS.defaultTimeoutMs)
      .describe('Deadline of a request that did not bring its own, in milliseconds.'),
  })
  .superRefine((batching, ctx) => {
    batching.preferredBatchSizes.forEach((size, index) => {
      const most = batching.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE;
      if (size > most) {
        ctx.addIssue({
          code: 'custom',
          path: ['preferredBatchSizes', index],
          message: `preferred batch size ${size} exceeds maxBatchSize ${most}`,
        });
      }
    });
    reportDuplicates(
      ctx,
      batching.preferredBatchSizes,
      String,
      (i) => ['preferredBatchSizes', i],
      'batch size',
    );
  });

/** Dynamic batching limits of one model. */
export type BatchingConfig = z.infer<typeof batchingSchema>;

/**
 * Reports, under `path`, the batching fields `task` gives no meaning to: a text-generation model
 * schedules decode steps (a waiting sequence joins at the next step), so maxQueueDelayMicros,
 * preferredBatchSizes and maxPaddingRatio must keep their defaults rather than be accepted and
 * ignored. An image-classification model pads nothing, so maxPaddingRatio keeps its default there
 * too. Other tasks use every field.
 */
export function checkBatchingForTask(
  task: ModelTask,
  batching: BatchingConfig,
  ctx: z.RefinementCtx,
  path: PropertyKey[] = ['batching'],
): void {
  if (task === 'image-classification') {
    // Every image is one fixed-size row: nothing is padded, so there is no padding to bound.
    if (batching.maxPaddingRatio !== ENCODER_ONLY_BATCHING_DEFAULTS.maxPaddingRatio) {
      ctx.addIssue({
        code: 'custom',
        path: [...path, 'maxPaddingRatio'],
        message:
          'has no meaning for an image-classification model (every image is one row of the same size, nothing is padded); leave it out',
      });
    }
    return;
  }
  if (!isGenerativeTask(task)) return;
  const meaning =
    `has no meaning for ${task === 'image-to-text' ? 'an' : 'a'} ${task} model (a waiting sequence joins the running batch at the next decode step); ` +
    'leave it out. Generation uses maxBatchSize (sequences decoding together), maxQueueSize (sequences waiting) ' +
    'and maxBatchTokens (KV-cache budget in tokens)';
  if (batching.maxQueueDelayMicros !== ENCODER_ONLY_BATCHING_DEFAULTS.maxQueueDelayMicros) {
    ctx.addIssue({ code: 'custom', path: [...path, 'maxQueueDelayMicros'], message: meaning });
  }
  if (batching.preferredBatchSizes.length > 0) {
    ctx.addIssue({ code: 'custom', path: [...path, 'preferredBatchSizes'], message: meaning });
  }
  if (batching.maxPaddingRatio !== ENCODER_ONLY_BATCHING_DEFAULTS.maxPaddingRatio) {
    ctx.addIssue({ code: 'custom', path: [...path, 'maxPaddingRatio'], message: meaning });
  }
}

/**
 * Reports a maxQueueDelayMicros that could never make a batch wait: the batcher waits only for a
 * preferred batch size, and only while another batch runs (batch-policy.ts), so the delay needs
 * preferredBatchSizes and two or more instances. 0 and the default are accepted anywhere (neither
 * asks for a wait). The task's own rule (checkBatchingForTask) comes first for generation models.
 */
export function checkQueueDelay(
  batching: BatchingConfig,
  instances: number,
  ctx: z.RefinementCtx,
  path: PropertyKey[] = ['batching', 'maxQueueDelayMicros'],
): void {
  const delay = batching.maxQueueDelayMicros;
  if (delay === 0 || delay === ENCODER_ONLY_BATCHING_DEFAULTS.maxQueueDelayMicros) return;
  const missing = [
    ...(batching.preferredBatchSizes.length === 0 ? ['batching.preferredBatchSizes'] : []),
    ...(instances < 2 ? ['runtime.instances 2 or more'] : []),
  ];
  if (missing.length === 0) return;
  ctx.addIssue({
    code: 'custom',
    path,
    message:
      `makes a batch wait only to reach a preferred batch size while another batch runs, so it needs ${missing.join(' and ')}; ` +
      'without, a batch goes as soon as an instance is free. Give them, or leave it out',
  });
}

/**
 * What model preparation read about a text-generation model, for the worker to check requests
 * against before they reach the decode batch (where one bad sequence would fail the others).
 */
/**
 * The decoding defaults a text-generation model ships in generation_config.json that modelgate
 * applies (Hugging Face's names): a request's own value wins over each, and each wins over the
 * route's built-in default.
 */
export const generationDefaultsSchema = z
  .object({
    max_new_tokens: positiveIntSchema.optional().describe('Most tokens to generate'),
    do_sample: z.boolean().optional().describe('Sample (true) or decode greedily (false)'),
    temperature: z.number().gt(0).optional().describe('Divides the logits before sampling'),
    top_k: z.int().min(0).optional().describe('Sample among the k most likely tokens (0: off)'),
    top_p: z.number().gt(0).max(1).optional().describe('Nucleus sampling (1: off)'),
    repetition_penalty: z.number().gt(0).optional().describe("Hugging Face's repetition penalty (1: off)"),
    no_repeat_ngram_size: z.int().min(0).optional().describe('No repeated n-gram of this size (0: off)'),
    min_new_tokens: z.int().min(0).optional().describe('No end-of-sequence token before this many tokens'),
  })
  .strict();

/** The generation_config.json defaults modelgate applies. */
export type GenerationDefaults = z.infer<typeof generationDefaultsSchema>;

export const generationFactsSchema = z.object({
  maxPositions: positiveIntSchema.describe(
    "The model's positions (config.json n_positions / max_position_embeddings): prompt + max_new_tokens must fit.",
  ),
  vocabSize: positiveIntSchema
    .optional()
    .describe(
      'Tokens the logits score (their static last dim, else config.json vocab_size): valid ids are below it.',
    ),
  defaults: generationDefaultsSchema
    .optional()
    .describe(
      "text-generation: the decoding defaults of the model's generation_config.json that apply (a request's value wins)",
    ),
  unsupportedDefaults: z
    .array(z.string().describe('`field=value`'))
    .optional()
    .describe(
      "Fields of the model's generation_config.json that modelgate does not apply (beam search, typical_p, …), as `field=value`",
    ),
});

/** What preparation read about a text-generation model. */
export type GenerationFacts = z.infer<typeof generationFactsSchema>;

/**
 * The pixel_values an image model gets, as preparation read them from preprocessor_config.json
 * (the center crop, else an exact resize): the worker warms an encoder with dynamic image dims up
 * on this size and checks requests against it.
 */
export const imageFactsSchema = z.object({
  channels: positiveIntSchema.describe('Colour channels (3).'),
  height: positiveIntSchema.describe('Rows of pixel_values.'),
  width: positiveIntSchema.describe('Columns of pixel_values.'),
});

/** What preparation read about an image model's input size. */
export type ImageFacts = z.infer<typeof imageFactsSchema>;

/** onnxruntime execution providers, in the spelling of the config. */
export const EXECUTION_PROVIDERS = ['tensorrt', 'cuda', 'cpu'] as const;

/** One onnxruntime execution provider. */
export type ExecutionProvider = (typeof EXECUTION_PROVIDERS)[number];

/** How a worker runs one model. */
export const runtimeSchema = z.object({
  executionProviders: z
    .array(z.enum(EXECUTION_PROVIDERS))
    .min(1, 'must list at least one execution provider')
    .refine((providers) => new Set(providers).size === providers.length, 'must not repeat a provider')
    .default(['cpu'])
    .describe('Providers in order of preference; a worker falls back along the list.'),
  instances: positiveIntSchema
    .default(1)
    .describe('onnxruntime sessions per worker for this model (besides a solo session: see intraOpThreads).'),
  intraOpThreads: nonNegativeIntSchema
    .default(0)
    .describe(
      "Intra-op threads per session; 0 shares the worker's cores among the instances (⌊cores ÷ instances⌋, at least 1), so instances × threads never exceeds the cores. With 0 and 2 or more instances on the CPU, an encoder model also gets a solo session with a thread per core, for batches that find every instance idle (WORKER_SOLO_SESSION).",
    ),
});

/** How a worker runs one model. */
export type RuntimeConfig = z.infer<typeof runtimeSchema>;

/**
 * One version of one model, as the registry publishes it. Unknown keys are dropped rather than
 * rejected so that an older node can read a snapshot from a newer registry.
 */
export const modelSpecSchema = z
  .object({
    id: modelIdSchema.describe('`name:version`; must equal the two fields.'),
    name: resourceNameSchema.describe('Model name.'),
    version: modelVersionSchema.describe('Positive integer as a decimal string, e.g. "1".'),
    task: modelTaskSchema.describe('What the model does; decides pre- and post-processing.'),
    workerGroup: resourceNameSchema.default('default').describe('Worker group that loads the model.'),
    artifact: artifactRefSchema.describe('The .onnx file; only workers fetch it.'),
    externalData: externalDataListSchema
      .optional()
      .describe(
        'ONNX external data files placed beside the .onnx file under their names; only workers fetch them.',
      ),
    encoder: artifactRefSchema
      .optional()
      .describe(
        'image-to-text only, and required there: the vision encoder graph (encoder_model.onnx: pixel_values in, last_hidden_state out); `artifact` is then the decoder with past (decoder_model_merged.onnx). Only workers fetch it.',
      ),
    tokenizer: artifactRefSchema
      .optional()
      .describe(
        'Tokenizer bundle (tokenizer.json, tokenizer_config.json, config.json); required unless task is raw.',
      ),
    labels: labelsSchema.optional().describe('Class labels by output index (text-classification).'),
    inputs: z
      .array(tensorMetadataSchema)
      .default([])
      .describe('Model inputs as read from the ONNX file; empty until preparation has read it.'),
    outputs: z
      .array(tensorMetadataSchema)
      .default([])
      .describe('Model outputs as read from the ONNX file; empty until preparation has read it.'),
    generation: generationFactsSchema
      .optional()
      .describe('text-generation only, set by preparation: the limits of the model itself.'),
    image: imageFactsSchema
      .optional()
      .describe(
        'image-classification and image-to-text, set by preparation when the image processor gives every image one size: the pixel_values [channels, height, width] the gateway sends.',
      ),
    batching: batchingSchema.prefault({}).describe('Dynamic batching limits.'),
    runtime: runtimeSchema.prefault({}).describe('Runtime settings.'),
  })
  .superRefine((model, ctx) => {
    const expectedId = formatModelId(model.name, model.version);
    if (model.id !== expectedId) {
      ctx.addIssue({ code: 'custom', path: ['id'], message: `must equal name:version, '${expectedId}'` });
    }
    if (model.task !== 'raw' && model.tokenizer === undefined) {
      ctx.addIssue({ code: 'custom', path: ['tokenizer'], message: `is required for task ${model.task}` });
    }
    if (model.task === 'image-to-text' && model.encoder === undefined) {
      ctx.addIssue({ code: 'custom', path: ['encoder'], message: 'is required for task image-to-text' });
    }
    if (model.task !== 'image-to-text' && model.encoder !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['encoder'],
        message: `is for image-to-text models only (this one is ${model.task}); leave it out`,
      });
    }
    checkBatchingForTask(model.task, model.batching, ctx);
    if (!isGenerativeTask(model.task)) checkQueueDelay(model.batching, model.runtime.instances, ctx);
    reportDuplicates(
      ctx,
      model.inputs,
      (input) => input.name,
      (i) => ['inputs', i, 'name'],
      'input',
    );
    reportDuplicates(
      ctx,
      model.outputs,
      (output) => output.name,
      (i) => ['outputs', i, 'name'],
      'output',
    );
  });

/** One version of one model, with defaults applied. */
export type ModelSpec = z.infer<typeof modelSpecSchema>;

/** A ModelSpec as written by hand or sent by the registry: defaulted fields may be left out. */
export type ModelSpecInput = z.input<typeof modelSpecSchema>;

/** Validates one model spec (e.g. from the admin API), throwing ModelgateError(INVALID_ARGUMENT) listing every bad path. */
export function parseModelSpec(json: unknown): ModelSpec {
  return parseWith(modelSpecSchema, json, 'model spec');
}
