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
import { chatRoutes } from './chat-openapi.js';
import { generationRoutes, openAiErrors } from './generation-openapi.js';
import { kserveRoutes } from './kserve-openapi.js';
import { teiRoutes } from './tei-openapi.js';
import {
  MODEL_HEADER,
  REQUEST_ID_HEADER,
  ROUTE_KEY_HEADER,
  gatewayErrors,
  serveAnswerBody,
  serveRoutes,
} from './serve-openapi.js';

const jobBody: ApiBody = {
  name: 'Job',
  schema: z.object({
    job: z.string().describe("The job's id"),
    status: z.enum(['queued', 'running', 'succeeded', 'failed']).describe('Where the job is'),
    result: serveAnswerBody.schema.optional().describe('The answer, once succeeded'),
    error: z
      .object({
        code: z.string().describe('The error code, as in the error schema'),
        message: z.string().describe('What went wrong'),
      })
      .optional()
      .describe('Why, once failed'),
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
    object: z.literal('list').describe('Always `list`'),
    data: z
      .array(
        z.object({
          object: z.literal('embedding').describe('Always `embedding`'),
          index: z.int().describe("The input's position in `input`"),
          embedding: z
            .union([z.array(z.number()), z.string().describe('base64 of little-endian float32')])
            .describe('The vector: numbers, or base64 when `encoding_format` is `base64`'),
        }),
      )
      .describe('One embedding per input, in order'),
    model: z.string().describe('The `model` of the request'),
    usage: z
      .object({
        prompt_tokens: z.int().describe('Tokens in the inputs'),
        total_tokens: z.int().describe('Same as prompt_tokens'),
      })
      .describe('Token counts'),
  }),
};

const readinessBody: ApiBody = {
  name: 'Readiness',
  schema: z.object({
    ready: z.boolean().describe('Whether the gateway takes traffic'),
    reason: z
      .enum(['shutting-down', 'no-revision', 'serving'])
      .describe('Why: shutting down, no config revision yet, or serving'),
    revision: z.int().nullable().describe('The config revision served; null before the first'),
    endpoints: z
      .record(
        z.string(),
        z.object({
          ready: z.boolean().describe('Whether the endpoint can be served now'),
          reason: z.string().optional().describe('Why not, when not ready'),
        }),
      )
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
    headers: [REQUEST_ID_HEADER, ROUTE_KEY_HEADER],
    body: embeddingsRequestBody,
    responses: {
      '200': {
        description: "OpenAI's list of embeddings.",
        body: embeddingsAnswerBody,
        headers: [REQUEST_ID_HEADER, MODEL_HEADER],
      },
      ...openAiErrors([400, 404, 413, 422, 429, 503, 504]),
    },
  },
  {
    method: 'get',
    path: '/health/live',
    operationId: 'HealthController_live',
    tag: 'health',
    summary: 'Liveness',
    responses: {
      '200': {
        description: 'Alive.',
        body: { name: 'Live', schema: z.object({ status: z.literal('ok').describe('Always `ok`') }) },
      },
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
    "`POST /serve/{endpoint}` with text (the body depends on the endpoint's task; text generation may " +
    "stream Server-Sent Events); KServe v2 REST for raw tensors and Triton's generate extension; " +
    'OpenAI-compatible embeddings, completions, chat completions and model list. Errors are `{"error": {code, message, request_id}}` ' +
    '(`{"error": "<message>"}` on /v2; with OpenAI\'s `type` and `param` added on /v1; TEI\'s `{error, error_type}` on its routes). ' +
    "Text Embeddings Inference's routes (/embed, /embed_all, /rerank, /predict, /tokenize, /decode, /info) over endpoints.",
  tags: [
    { name: 'serving', description: 'Inference by endpoint, synchronous or as a job' },
    { name: 'openai', description: 'OpenAI-compatible routes' },
    {
      name: 'kserve-v2',
      description: "KServe v2 / Open Inference Protocol REST, and Triton's generate extension",
    },
    {
      name: 'tei',
      description:
        "Text Embeddings Inference's routes; the endpoint is the body's `model`, the x-modelgate-endpoint header, or GATEWAY_TEI_DEFAULT_ENDPOINT",
    },
    { name: 'health', description: 'Probes and metrics' },
  ],
  routes: [
    ...serveRoutes,
    ...otherRoutes,
    ...generationRoutes.openai,
    ...chatRoutes,
    ...kserveRoutes,
    ...generationRoutes.kserve,
    ...teiRoutes,
  ],
};

/** The gateway's OpenAPI document. */
export function gatewayOpenApiDocument(): OpenApiDocument {
  return buildOpenApiDocument(gatewayApi);
}
