// The gateway's OpenAPI document (`/docs`, `/docs/json`), generated from the zod schemas its
// routes validate with; the answers' schemas are the shapes the routes' tests hold them to.
import {
  type ApiBody,
  type ApiDescription,
  type ApiRoute,
  MODELGATE_VERSION,
  type OpenApiDocument,
  buildOpenApiDocument,
} from '@modelgate/contracts';
import { z } from 'zod';
import { openAiEmbeddingsRequestSchema } from '../openai/openai-embeddings.js';
import { kserveRoutes } from './kserve-openapi.js';
import { REQUEST_ID_HEADER, gatewayErrors, serveAnswerBody, serveRoutes } from './serve-openapi.js';

const jobBody: ApiBody = {
  name: 'Job',
  schema: z.object({
    job: z.string(),
    status: z.enum(['queued', 'running', 'succeeded', 'failed']),
    result: serveAnswerBody.schema.optional().describe('The answer, once succeeded'),
    error: z.object({ code: z.string(), message: z.string() }).optional().describe('Why, once failed'),
  }),
  examples: { running: { summary: 'Still running', value: { job: 'k3Jv9q', status: 'running' } } },
};

const embeddingsRequestBody: ApiBody = {
  name: 'EmbeddingsRequest',
  schema: openAiEmbeddingsRequestSchema,
  examples: { one: { summary: 'One text', value: { model: 'embed', input: 'a sentence to embed' } } },
};

const embeddingsAnswerBody: ApiBody = {
  name: 'EmbeddingsAnswer',
  schema: z.object({
    object: z.literal('list'),
    data: z.array(
      z.object({
        object: z.literal('embedding'),
        index: z.int(),
        embedding: z.union([z.array(z.number()), z.string().describe('base64 of little-endian float32')]),
      }),
    ),
    model: z.string(),
    usage: z.object({ prompt_tokens: z.int(), total_tokens: z.int() }),
  }),
};

const readinessBody: ApiBody = {
  name: 'Readiness',
  schema: z.object({
    ready: z.boolean(),
    reason: z.enum(['shutting-down', 'no-revision', 'serving']),
    revision: z.int().nullable(),
    endpoints: z
      .record(z.string(), z.object({ ready: z.boolean(), reason: z.string().optional() }))
      .describe('Whether each endpoint can be served now, and why not (reported, never a gate)'),
  }),
};

const otherRoutes: ApiRoute[] = [
  {
    method: 'get',
    path: '/jobs/{id}',
    operationId: 'JobsController_job',
    tag: 'serving',
    summary: 'State and, once done, the answer of an asynchronous request',
    pathParams: z.object({ id: z.string().describe('The `job` of the 202 answer') }),
    responses: {
      '200': { description: 'The job.', body: jobBody },
      ...gatewayErrors([404, 503]),
    },
  },
  {
    method: 'post',
    path: '/v1/embeddings',
    operationId: 'EmbeddingsController_embeddings',
    tag: 'openai',
    summary: 'OpenAI-compatible embeddings: `model` names a feature-extraction endpoint',
    headers: [REQUEST_ID_HEADER],
    body: embeddingsRequestBody,
    responses: {
      '200': { description: "OpenAI's list of embeddings.", body: embeddingsAnswerBody },
      ...gatewayErrors([400, 404, 413, 422, 429, 503, 504]),
    },
  },
  {
    method: 'get',
    path: '/health/live',
    operationId: 'HealthController_live',
    tag: 'health',
    summary: 'Liveness',
    responses: {
      '200': { description: 'Alive.', body: { name: 'Live', schema: z.object({ status: z.literal('ok') }) } },
    },
  },
  {
    method: 'get',
    path: '/health/ready',
    operationId: 'HealthController_ready',
    tag: 'health',
    summary: 'Readiness: a config revision applied and not shutting down; per-endpoint verdicts',
    responses: {
      '200': { description: 'Ready.', body: readinessBody },
      '503': { description: 'Not ready (`reason` says why).', body: readinessBody },
    },
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'HealthController_metricsText',
    tag: 'health',
    summary: 'Prometheus metrics',
    responses: {
      '200': {
        description: 'Prometheus text exposition format.',
        body: { name: 'MetricsText', schema: z.string(), contentType: 'text/plain' },
      },
    },
  },
];

/** The gateway's API: every route it serves except the docs themselves. */
export const gatewayApi: ApiDescription = {
  title: 'modelgate gateway',
  version: MODELGATE_VERSION,
  description:
    "`POST /serve/{endpoint}` with text (the body depends on the endpoint's task); KServe v2 REST for " +
    'raw tensors; OpenAI-compatible embeddings. Errors are `{"error": {code, message, request_id}}` ' +
    '(`{"error": "<message>"}` on /v2).',
  tags: [
    { name: 'serving', description: 'Inference by endpoint, synchronous or as a job' },
    { name: 'openai', description: 'OpenAI-compatible routes' },
    { name: 'kserve-v2', description: 'KServe v2 / Open Inference Protocol REST' },
    { name: 'health', description: 'Probes and metrics' },
  ],
  routes: [...serveRoutes, ...otherRoutes, ...kserveRoutes],
};

/** The gateway's OpenAPI document. */
export function gatewayOpenApiDocument(): OpenApiDocument {
  return buildOpenApiDocument(gatewayApi);
}
