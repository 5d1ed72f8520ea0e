import { z } from 'zod';
import { generationDefaultsSchema } from './model-spec.schema.js';
import { type ModelTask, isGenerativeTask, modelTaskSchema } from './model-task.js';
import { reportDuplicates } from './report-duplicates.js';
import {
  modelIdSchema,
  positiveIntSchema,
  resourceNameSchema,
  timeoutMsSchema,
} from './spec-fields.schema.js';
import { parseWith } from './validation-issues.js';

/** What a route does with traffic: serve it (primary, canary) or get a mirrored copy (shadow). */
export const ROUTE_ROLES = ['primary', 'canary', 'shadow'] as const;

/** One of ROUTE_ROLES. */
export type RouteRole = (typeof ROUTE_ROLES)[number];

/** The default header a client sets to stick to one route of a canary split. */
export const DEFAULT_STICKY_HEADER = 'x-modelgate-route-key';

/** One model behind an endpoint and its share of traffic. */
export const routeSchema = z.object({
  model: modelIdSchema.describe('Model id, `name:version`.'),
  weight: z
    .int()
    .min(0)
    .max(100)
    .describe('Percent of requests: served (primary, canary) or mirrored (shadow), 0-100.'),
  role: z.enum(ROUTE_ROLES).describe('primary | canary | shadow.'),
});

/** One model behind an endpoint and its share of traffic. */
export type Route = z.infer<typeof routeSchema>;

/** Default of preprocessing.maxBatchItems. */
const DEFAULT_MAX_BATCH_ITEMS = 64;

/** Default of preprocessing.maxInputChars. */
const DEFAULT_MAX_INPUT_CHARS = 20000;

/** Tasks whose requests carry one image and no text. */
const IMAGE_TASKS: readonly ModelTask[] = ['image-classification', 'image-to-text'];

/** transformers' QA pipeline never makes windows longer than this (max_seq_len's default cap). */
export const MAX_QUESTION_ANSWERING_SEQ_LEN = 384;

/** Limits and options of the gateway's text → tensors step. */
export const preprocessingSchema = z.object({
  maxInputChars: positiveIntSchema
    .default(DEFAULT_MAX_INPUT_CHARS)
    .describe('Longest accepted input text, in UTF-16 code units.'),
  maxTokens: positiveIntSchema
    .optional()
    .describe(
      "Token limit per input; when absent, the model's own maximum length (config.json) applies. text-generation: prompt tokens, special tokens included (see truncation); prompt + max_new_tokens must also fit the model's n_positions (422 beyond).",
    ),
  truncation: z
    .boolean()
    .default(true)
    .describe(
      'Cut inputs over maxTokens instead of answering 422. text-generation keeps the last maxTokens tokens of the prompt (the text the continuation follows).',
    ),
  maxBatchItems: positiveIntSchema
    .default(DEFAULT_MAX_BATCH_ITEMS)
    .describe(
      "Most inputs in one request's `text` array (413 beyond). Not for text-generation (one prompt per request) nor image tasks (one image).",
    ),
  maxImageBytes: positiveIntSchema
    .optional()
    .describe(
      'image-classification and image-to-text: largest encoded image, in bytes after base64 decoding (413 beyond); 10 MiB when absent. A raw body is also bounded by the gateway body limit.',
    ),
  maxImagePixels: positiveIntSchema
    .optional()
    .describe(
      'image-classification and image-to-text: largest width × height, read from the header before decoding (413 beyond); 40,000,000 when absent.',
    ),
});

/** Limits and options of the gateway's text → tensors step. */
export type PreprocessingConfig = z.infer<typeof preprocessingSchema>;

/** Pooling of token embeddings into one vector (feature-extraction). */
export const POOLING_MODES = ['mean', 'cls'] as const;

/** Options of the gateway's tensors → JSON step; each applies to one task. */
export const postprocessingSchema = z.object({
  topK: positiveIntSchema
    .optional()
    .describe(
      'Labels returned per input, best first (text- and image-classification); when absent 1, or every label for a multi-label model.',
    ),
  pooling: z.enum(POOLING_MODES).optional().describe('mean or cls pooling (feature-extraction).'),
  normalize: z.boolean().optional().describe('L2-normalize the embedding (feature-extraction).'),
  multiLabel: z
    .boolean()
    .optional()
    .describe('Independent sigmoid per label instead of a softmax over labels (text-classification).'),
});

/** Options of the gateway's tensors → JSON step. */
export type PostprocessingConfig = z.infer<typeof postprocessingSchema>;

/** The classification options apply to text and image classifiers alike (the same logits → labels step). */
const CLASSIFIERS: readonly ModelTask[] = ['text-classification', 'image-classification'];

const TASKS_OF_POSTPROCESSING_OPTION = {
  topK: CLASSIFIERS,
  multiLabel: CLASSIFIERS,
  pooling: ['feature-extraction'],
  normalize: ['feature-extraction'],
} as const satisfies Record<keyof PostprocessingConfig, readonly ModelTask[]>;

/** Preprocessing options of one task only. */
const TASKS_OF_PREPROCESSING_OPTION = {
  maxImageBytes: ['image-classification', 'image-to-text'],
  maxImagePixels: ['image-classification', 'image-to-text'],
} as const satisfies Partial<Record<keyof PreprocessingConfig, readonly ModelTask[]>>;

/**
 * Reports the preprocessing options `task` would ignore: the image limits off image endpoints,
 * the text limits (maxTokens, maxInputChars, truncation) on them, truncation on question-answering
 * (which windows contexts instead). A text-generation request carries
 * one prompt and an image request one image, so maxBatchItems must keep its default there.
 * For text-generation maxInputChars, maxTokens and truncation apply to the prompt (413 beyond
 * maxInputChars; over maxTokens its last tokens are kept, or 422 without truncation).
 */
function checkPreprocessingForTask(
  task: ModelTask,
  preprocessing: PreprocessingConfig,
  ctx: z.RefinementCtx,
): void {
  for (const [option, tasks] of Object.entries(TASKS_OF_PREPROCESSING_OPTION)) {
    if (preprocessing[option as keyof typeof TASKS_OF_PREPROCESSING_OPTION] === undefined) continue;
    if ((tasks as readonly ModelTask[]).includes(task)) continue;
    ctx.addIssue({
      code: 'custom',
      path: ['preprocessing', option],
      message: `applies to ${tasks.join(' and ')} endpoints only, not ${task}`,
    });
  }
  if (IMAGE_TASKS.includes(task)) {
    // An image request has no text: the text limits would be stored and never applied.
    const textOptions = [
      ...(preprocessing.maxTokens !== undefined ? ['maxTokens'] : []),
      ...(preprocessing.maxInputChars !== DEFAULT_MAX_INPUT_CHARS ? ['maxInputChars'] : []),
      ...(preprocessing.truncation !== true ? ['truncation'] : []),
    ];
    for (const option of textOptions) {
      ctx.addIssue({
        code: 'custom',
        path: ['preprocessing', option],
        message: `does not apply to ${task} endpoints: a request carries an image, no text; leave it out`,
      });
    }
  }
  if (
    task === 'question-answering' &&
    preprocessing.maxTokens !== undefined &&
    preprocessing.maxTokens > MAX_QUESTION_ANSWERING_SEQ_LEN
  ) {
    ctx.addIssue({
      code: 'custom',
      path: ['preprocessing', 'maxTokens'],
      message: `question-answering windows are at most ${MAX_QUESTION_ANSWERING_SEQ_LEN} tokens (the pipeline's max_seq_len); give ${MAX_QUESTION_ANSWERING_SEQ_LEN} or less`,
    });
  }
  if (task === 'question-answering' && preprocessing.truncation !== true) {
    // Long contexts become overlapping windows; a question is cut only to a max_question_len given.
    ctx.addIssue({
      code: 'custom',
      path: ['preprocessing', 'truncation'],
      message:
        'does not apply to question-answering endpoints: long contexts become overlapping windows (doc_stride), and a question is cut only to the max_question_len a request gives; leave it out',
    });
  }
  if (
    task === 'text-generation' &&
    preprocessing.truncation !== true &&
    preprocessing.maxTokens === undefined
  ) {
    // A prompt is cut only to maxTokens; past the model's n_positions it is refused either way.
    ctx.addIssue({
      code: 'custom',
      path: ['preprocessing', 'truncation'],
      message:
        "applies to text-generation prompts over maxTokens, which is not set (a prompt past the model's n_positions is refused either way); give maxTokens or leave truncation out",
    });
  }
  if (!isGenerativeTask(task) && !IMAGE_TASKS.includes(task)) return;
  if (preprocessing.maxBatchItems !== DEFAULT_MAX_BATCH_ITEMS) {
    const what = IMAGE_TASKS.includes(task) ? 'one image' : 'one prompt';
    ctx.addIssue({
      code: 'custom',
      path: ['preprocessing', 'maxBatchItems'],
      message: `does not apply to ${task} endpoints: a request carries ${what}; leave it out`,
    });
  }
}

/**
 * A public endpoint: `POST /serve/<name>`. Unknown keys are dropped rather than rejected so that
 * an older node can read a snapshot from a newer registry.
 */
export const endpointSpecSchema = z
  .object({
    name: resourceNameSchema.describe('Endpoint name, the path segment after /serve/.'),
    task: modelTaskSchema.describe('Task; every routed model must be compatible with it.'),
    routes: z
      .array(routeSchema)
      .default([])
      .describe('Routes; when any, non-shadow weights sum to 100 and exactly one is primary.'),
    preprocessing: preprocessingSchema.prefault({}).describe('Pre-processing limits.'),
    postprocessing: postprocessingSchema.default({}).describe('Post-processing options.'),
    stickyHeader: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,127}$/, 'must be a lowercase header name of letters, digits and dashes')
      .default(DEFAULT_STICKY_HEADER)
      .describe('Lowercase request header whose value pins a client to one route.'),
    timeoutMs: timeoutMsSchema
      .optional()
      .describe(
        "Deadline of a request to this endpoint, in milliseconds (a generation's: the whole generation); when absent, the model's defaultTimeoutMs, plus 50 ms per token of max_new_tokens for a generation.",
      ),
    generation: generationDefaultsSchema
      .default({})
      .describe(
        "text-generation: this endpoint's decoding defaults (Hugging Face's names), under each request's own values and over the model's generation_config.json",
      ),
  })
  .superRefine((endpoint, ctx) => {
    const { routes } = endpoint;
    if (routes.length > 0) {
      const servedWeight = routes.filter((r) => r.role !== 'shadow').reduce((sum, r) => sum + r.weight, 0);
      if (servedWeight !== 100) {
        ctx.addIssue({
          code: 'custom',
          path: ['routes'],
          message: `weights of primary and canary routes must sum to 100, got ${servedWeight}`,
        });
      }
      const primaries = routes.filter((r) => r.role === 'primary').length;
      if (primaries !== 1) {
        ctx.addIssue({
          code: 'custom',
          path: ['routes'],
          message: `must have exactly one primary route, got ${primaries}`,
        });
      }
    }
    reportDuplicates(
      ctx,
      routes,
      (route) => route.model,
      (i) => ['routes', i, 'model'],
      'route to model',
    );

    checkPreprocessingForTask(endpoint.task, endpoint.preprocessing, ctx);
    if (Object.keys(endpoint.generation).length > 0 && endpoint.task !== 'text-generation') {
      ctx.addIssue({
        code: 'custom',
        path: ['generation'],
        message: `decoding defaults apply to text-generation endpoints only, not ${endpoint.task}`,
      });
    }
    for (const [option, tasks] of Object.entries(TASKS_OF_POSTPROCESSING_OPTION)) {
      const value = endpoint.postprocessing[option as keyof PostprocessingConfig];
      if (value !== undefined && !(tasks as readonly ModelTask[]).includes(endpoint.task)) {
        ctx.addIssue({
          code: 'custom',
          path: ['postprocessing', option],
          message: `applies to ${tasks.join(' and ')} endpoints only, not ${endpoint.task}`,
        });
      }
    }
  });

/** A public endpoint, with defaults applied. */
export type EndpointSpec = z.infer<typeof endpointSpecSchema>;

/** An EndpointSpec as written by hand or sent by the registry: defaulted fields may be left out. */
export type EndpointSpecInput = z.input<typeof endpointSpecSchema>;

/** Validates one endpoint spec (e.g. from the admin API), throwing ModelgateError(INVALID_ARGUMENT) listing every bad path. */
export function parseEndpointSpec(json: unknown): EndpointSpec {
  return parseWith(endpointSpecSchema, json, 'endpoint spec');
}
