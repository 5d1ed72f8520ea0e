import { z } from 'zod';
import {
  postprocessingSchema,
  preprocessingSchema,
  ROUTE_ROLES,
  routeSchema,
} from '../config/endpoint-spec.schema.js';
import { generationDefaultsSchema } from '../config/model-spec.schema.js';
import { modelTaskSchema } from '../config/model-task.js';
import {
  modelIdSchema,
  positiveIntSchema,
  resourceNameSchema,
  timeoutMsSchema,
} from '../config/spec-fields.schema.js';

const stickyHeaderSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,127}$/, 'must be a lowercase header name of letters, digits and dashes');

/** `POST /v1/endpoints`: an endpoint with one primary route to a READY model. */
export const createEndpointSchema = z.strictObject({
  name: resourceNameSchema.describe('Endpoint name: clients call `POST /serve/<name>`'),
  task: modelTaskSchema.describe(
    "Task; the model must do it (a raw endpoint takes a model of any task but raw, and answers with the model's task)",
  ),
  model: modelIdSchema.describe('The model serving 100% of traffic, `name:version`'),
  preprocessing: preprocessingSchema
    .strict()
    .prefault({})
    .describe('Input limits: text length, tokens, batch size'),
  postprocessing: postprocessingSchema
    .strict()
    .default({})
    .describe('Answer options: topK, pooling, normalize, multiLabel'),
  stickyHeader: stickyHeaderSchema
    .optional()
    .describe('Request header pinning a client to one route; `x-modelgate-route-key` when omitted'),
  timeoutMs: timeoutMsSchema
    .optional()
    .describe("Request deadline in milliseconds; the model's defaultTimeoutMs when omitted"),
  generation: generationDefaultsSchema
    .default({})
    .describe(
      "text-generation: decoding defaults (max_new_tokens, do_sample, temperature, top_k, top_p, repetition_penalty, no_repeat_ngram_size, min_new_tokens), under each request's values and over the model's generation_config.json",
    ),
});

/** The body of `POST /v1/endpoints` as a client sends it. */
export type CreateEndpointRequest = z.input<typeof createEndpointSchema>;

/** A validated endpoint creation. */
export type CreateEndpointInput = z.output<typeof createEndpointSchema>;

/**
 * `PATCH /v1/endpoints/:name`: limits and options. preprocessing and postprocessing merge into
 * the current values key by key; `null` clears stickyHeader, timeoutMs or a postprocessing key.
 * generation merges the same way, `null` clearing a key (the model's own default applies again).
 */
export const updateEndpointSchema = z.strictObject({
  preprocessing: z
    .strictObject({
      maxInputChars: positiveIntSchema.describe('Longest accepted input text, in UTF-16 code units'),
      maxTokens: positiveIntSchema.nullable().describe("Token limit per input; null: the model's maximum"),
      truncation: z.boolean().describe('Cut inputs over maxTokens instead of answering 422'),
      maxBatchItems: positiveIntSchema.describe('Most inputs in one request (413 beyond)'),
    })
    .partial()
    .optional()
    .describe('Input limits to change; keys left out keep their value'),
  postprocessing: z
    .strictObject({
      topK: positiveIntSchema
        .nullable()
        .describe('Labels returned per input (text-classification); null: all'),
      pooling: z.enum(['mean', 'cls']).nullable().describe('mean or cls pooling (feature-extraction)'),
      normalize: z.boolean().nullable().describe('L2-normalize the embedding (feature-extraction)'),
      multiLabel: z
        .boolean()
        .nullable()
        .describe('Sigmoid per label instead of a softmax (text-classification)'),
    })
    .partial()
    .optional()
    .describe('Answer options to change; keys left out keep their value, null clears one'),
  stickyHeader: stickyHeaderSchema
    .nullable()
    .optional()
    .describe('Request header pinning a client to one route; null: `x-modelgate-route-key`'),
  timeoutMs: timeoutMsSchema
    .nullable()
    .optional()
    .describe("Request deadline in milliseconds; null: the model's defaultTimeoutMs"),
  generation: z
    .strictObject(
      Object.fromEntries(
        Object.entries(generationDefaultsSchema.shape).map(([key, schema]) => [
          key,
          schema
            .unwrap()
            .nullable()
            .describe(`${schema.description ?? key}; null: the model's own`),
        ]),
      ) as {
        [K in keyof typeof generationDefaultsSchema.shape]: z.ZodNullable<
          ReturnType<(typeof generationDefaultsSchema.shape)[K]['unwrap']>
        >;
      },
    )
    .partial()
    .optional()
    .describe(
      'Decoding defaults to change (text-generation); keys left out keep their value, null clears one',
    ),
});

/** The body of `PATCH /v1/endpoints/:name` as a client sends it. */
export type UpdateEndpointRequest = z.input<typeof updateEndpointSchema>;

/** A validated endpoint update. */
export type UpdateEndpointInput = z.output<typeof updateEndpointSchema>;

/** One route of `PUT /v1/endpoints/:name/routes`; the registry fills in a missing role. */
export const routeRequestSchema = z.strictObject({
  model: modelIdSchema.describe('The model, `name:version`'),
  weight: z.int().min(0).max(100).describe('Percent of traffic, an integer 0-100'),
  // planRoutes (apps/registry) fills in missing roles.
  role: z
    .enum(ROUTE_ROLES)
    .optional()
    .describe(
      'primary, canary or shadow; when omitted: primary for the heaviest route if none is marked, else canary',
    ),
});

/** One route as a client asks for it. */
export type RouteRequest = z.infer<typeof routeRequestSchema>;

/** `PUT /v1/endpoints/:name/routes`: the endpoint's whole route list, replaced at once. */
export const setRoutesSchema = z.strictObject({
  routes: z.array(routeRequestSchema).describe("The endpoint's routes, replacing the current ones"),
});

/** The body of `PUT /v1/endpoints/:name/routes`. */
export type SetRoutesRequest = z.input<typeof setRoutesSchema>;

/** An endpoint as the admin API shows it (`GET /v1/endpoints/:name`, and every endpoint answer). */
export const endpointViewSchema = z.object({
  name: z.string().describe('Endpoint name: clients call `POST /serve/<name>`'),
  task: modelTaskSchema.describe('Task'),
  routes: z.array(routeSchema).describe('Where traffic goes: model, weight and role of each route'),
  preprocessing: preprocessingSchema.describe('Input limits'),
  postprocessing: postprocessingSchema.describe('Answer options'),
  stickyHeader: z
    .string()
    .nullable()
    .describe('Request header pinning a client to one route; null: `x-modelgate-route-key`'),
  timeoutMs: z.number().nullable().describe("Request deadline in milliseconds; null: the model's"),
  generation: generationDefaultsSchema.describe(
    "text-generation: the endpoint's decoding defaults, over the model's generation_config.json (empty: the model's alone)",
  ),
  createdAt: z.string().describe('ISO time it was created'),
  updatedAt: z.string().describe('ISO time it last changed'),
});

/** An endpoint as the admin API shows it. */
export type EndpointView = z.infer<typeof endpointViewSchema>;
