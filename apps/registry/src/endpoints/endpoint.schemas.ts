import {
  modelIdSchema,
  modelTaskSchema,
  positiveIntSchema,
  postprocessingSchema,
  preprocessingSchema,
  resourceNameSchema,
  ROUTE_ROLES,
} from '@modelgate/contracts';
import { z } from 'zod';

const stickyHeaderSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,127}$/, 'must be a lowercase header name of letters, digits and dashes');

/** `POST /v1/endpoints`: an endpoint with one primary route to a READY model. */
export const createEndpointSchema = z.strictObject({
  /** Endpoint name: `POST /serve/<name>`. */
  name: resourceNameSchema,
  /** Task; the model must do it (or the endpoint is raw). */
  task: modelTaskSchema,
  /** The model serving 100% of traffic, `name:version`. */
  model: modelIdSchema,
  /** Pre-processing limits. */
  preprocessing: preprocessingSchema.prefault({}),
  /** Post-processing options. */
  postprocessing: postprocessingSchema.default({}),
  /** Header pinning a client to one route; the contracts' default when omitted. */
  stickyHeader: stickyHeaderSchema.optional(),
  /** Request deadline in milliseconds; the model's defaultTimeoutMs when omitted. */
  timeoutMs: positiveIntSchema.optional(),
});

/** A validated endpoint creation. */
export type CreateEndpointInput = z.output<typeof createEndpointSchema>;

/**
 * `PATCH /v1/endpoints/:name`: limits and options. preprocessing and postprocessing merge into
 * the current values key by key; `null` clears stickyHeader, timeoutMs or a postprocessing key.
 */
export const updateEndpointSchema = z.strictObject({
  preprocessing: z
    .strictObject({
      maxInputChars: positiveIntSchema,
      maxTokens: positiveIntSchema.nullable(),
      truncation: z.boolean(),
      maxBatchItems: positiveIntSchema,
    })
    .partial()
    .optional(),
  postprocessing: z
    .strictObject({
      topK: positiveIntSchema.nullable(),
      pooling: z.enum(['mean', 'cls']).nullable(),
      normalize: z.boolean().nullable(),
      multiLabel: z.boolean().nullable(),
    })
    .partial()
    .optional(),
  stickyHeader: stickyHeaderSchema.nullable().optional(),
  timeoutMs: positiveIntSchema.nullable().optional(),
});

/** A validated endpoint update. */
export type UpdateEndpointInput = z.output<typeof updateEndpointSchema>;

/** `PUT /v1/endpoints/:name/routes`. */
export const setRoutesSchema = z.strictObject({
  routes: z.array(
    z.strictObject({
      /** `name:version`. */
      model: modelIdSchema,
      /** Percent of traffic, an integer 0-100. */
      weight: z.int().min(0).max(100),
      /** primary | canary | shadow; see planRoutes for how missing roles are filled in. */
      role: z.enum(ROUTE_ROLES).optional(),
    }),
  ),
});
