// The TEI-compatible routes in the OpenAPI document. Their errors are TEI's `{error, error_type}`
// (tei/tei-errors.ts); the endpoint is the body's `model`, the x-modelgate-endpoint header, or
// GATEWAY_TEI_DEFAULT_ENDPOINT.
import { type ApiBody, type ApiHeader, type ApiResponse, type ApiRoute } from '@modelgate/contracts';
import { z } from 'zod';
import { TEI_ENDPOINT_HEADER } from '../tei/tei-endpoint.js';
import {
  teiDecodeRequestSchema,
  teiEmbedAllRequestSchema,
  teiEmbedRequestSchema,
  teiPredictRequestSchema,
  teiRerankRequestSchema,
  teiTokenizeRequestSchema,
} from '../tei/tei-requests.js';
import { MODEL_HEADER, REQUEST_ID_HEADER, ROUTE_KEY_HEADER } from './serve-openapi.js';

const teiErrorBody: ApiBody = {
  name: 'TeiError',
  schema: z.object({
    error: z.string().describe('What went wrong'),
    error_type: z
      .enum(['Unhealthy', 'Backend', 'Overloaded', 'Validation', 'Tokenizer', 'Empty'])
      .describe("TEI's error class: Validation 422, Empty 400, Overloaded 429, Unhealthy 503, Backend 424"),
  }),
  examples: {
    empty: { summary: 'An empty batch', value: { error: '`inputs` cannot be empty', error_type: 'Empty' } },
  },
};

const TEI_ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'An empty batch (`Empty`).',
  404: 'No such endpoint (`Validation`).',
  422: 'A malformed or refused field, an input over the limits, or an endpoint of another task (`Validation`).',
  424: 'The inference failed (`Backend`).',
  429: "The model's queue is full (`Overloaded`).",
  503: 'No worker serves the model now (`Unhealthy`).',
  504: 'The deadline passed (`Backend`).',
};

function teiErrors(statuses: readonly number[]): Record<string, ApiResponse> {
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      { description: TEI_ERROR_DESCRIPTIONS[status] ?? 'Error.', body: teiErrorBody },
    ]),
  );
}

const endpointHeader: ApiHeader = {
  name: TEI_ENDPOINT_HEADER,
  description: 'The endpoint to use when the body has no `model`; else GATEWAY_TEI_DEFAULT_ENDPOINT',
};

const headers = [REQUEST_ID_HEADER, endpointHeader, ROUTE_KEY_HEADER];
const answerHeaders = [REQUEST_ID_HEADER, MODEL_HEADER];
const inferenceErrors = teiErrors([400, 404, 422, 424, 429, 503, 504]);

const vector = z.array(z.number()).describe('One vector');

const tokenSchema = z.object({
  id: z.int().describe('Token id'),
  text: z.string().describe('The text the token came from; a special token is its vocabulary token'),
  special: z.boolean().describe('A special token ([CLS], [SEP], …)'),
  start: z.int().nullable().describe('UTF-8 byte offset of the start in the input; null for special tokens'),
  stop: z.int().nullable().describe('UTF-8 byte offset of the end in the input; null for special tokens'),
});

const labelSchema = z.object({
  score: z.number().describe('Probability (the logit with raw_scores)'),
  label: z.string().describe("The class name (the model's id2label)"),
});

const classifierSchema = z
  .object({
    id2label: z.record(z.string(), z.string()).describe('Label by index'),
    label2id: z.record(z.string(), z.int()).describe('Index by label'),
  })
  .describe("The model's labels");

const infoSchema = z.object({
  model_id: z.string().describe('The model serving the endpoint, `name:version`'),
  model_sha: z.null().describe('Always null'),
  model_dtype: z.string().describe('Always `float32`'),
  served_model_name: z.string().describe('The endpoint'),
  model_type: z
    .union([
      z.object({
        embedding: z
          .object({ pooling: z.string().describe("The endpoint's pooling") })
          .describe('An embedder'),
      }),
      z.object({ classifier: classifierSchema }),
      z.object({ reranker: classifierSchema }),
    ])
    .describe('feature-extraction: embedding; text-classification: classifier; text-ranking: reranker'),
  max_concurrent_requests: z.int().describe("The model's queue bound (batching.maxQueueSize)"),
  max_input_length: z.int().describe('Longest input in tokens'),
  max_batch_tokens: z.int().describe("The model's batching.maxBatchTokens"),
  max_batch_requests: z.int().describe("The model's batching.maxBatchSize"),
  max_client_batch_size: z.int().describe("Inputs per request (the endpoint's maxBatchItems)"),
  auto_truncate: z
    .boolean()
    .describe("Whether inputs over the limit are cut by default (the endpoint's truncation)"),
  tokenization_workers: z.int().describe("The gateway's event loops"),
  version: z.string().describe('The modelgate version'),
  sha: z.null().describe('Always null'),
  docker_label: z.null().describe('Always null'),
});

function route(
  method: 'get' | 'post',
  path: string,
  operation: string,
  summary: string,
  body: ApiBody | undefined,
  answer: ApiBody,
  errors: Record<string, ApiResponse> = inferenceErrors,
): ApiRoute {
  return {
    method,
    path,
    operationId: `TeiController_${operation}`,
    tag: 'tei',
    summary,
    headers,
    ...(body === undefined ? {} : { body }),
    responses: {
      '200': { description: 'The answer, as TEI answers.', body: answer, headers: answerHeaders },
      ...errors,
    },
  };
}

/** The TEI-compatible routes. */
export const teiRoutes: ApiRoute[] = [
  route(
    'post',
    '/embed',
    'embed',
    'TEI /embed: pooled embeddings of a feature-extraction endpoint, unit length by default',
    {
      name: 'TeiEmbedRequest',
      schema: teiEmbedRequestSchema,
      examples: { one: { summary: 'One text', value: { inputs: 'What is Deep Learning?' } } },
    },
    { name: 'TeiEmbedAnswer', schema: z.array(vector).describe('One embedding per input, in order') },
  ),
  route(
    'post',
    '/embed_all',
    'embedAll',
    'TEI /embed_all: every token vector of a feature-extraction endpoint',
    {
      name: 'TeiEmbedAllRequest',
      schema: teiEmbedAllRequestSchema,
      examples: { one: { summary: 'One text', value: { inputs: 'What is Deep Learning?' } } },
    },
    {
      name: 'TeiEmbedAllAnswer',
      schema: z.array(z.array(vector).describe("The input's token vectors")).describe('Per input, in order'),
    },
  ),
  route(
    'post',
    '/rerank',
    'rerank',
    "TEI /rerank: a text-ranking endpoint's scores of (query, text) pairs, best first",
    {
      name: 'TeiRerankRequest',
      schema: teiRerankRequestSchema,
      examples: {
        two: {
          summary: 'Two texts',
          value: {
            query: 'What is Deep Learning?',
            texts: ['Deep Learning is not...', 'Deep learning is...'],
          },
        },
      },
    },
    {
      name: 'TeiRerankAnswer',
      schema: z
        .array(
          z.object({
            index: z.int().describe('The position in `texts`'),
            text: z.string().optional().describe('The text, with return_text'),
            score: z.number().describe('sigmoid(logit), the logit with raw_scores'),
          }),
        )
        .describe('The texts, best first'),
    },
  ),
  route(
    'post',
    '/predict',
    'predict',
    "TEI /predict: a text-classification endpoint's labels of a text, a pair or a batch, best first",
    {
      name: 'TeiPredictRequest',
      schema: teiPredictRequestSchema,
      examples: { one: { summary: 'One text', value: { inputs: 'I like you. I love you' } } },
    },
    {
      name: 'TeiPredictAnswer',
      schema: z
        .union([z.array(labelSchema), z.array(z.array(labelSchema).describe("One input's labels"))])
        .describe('Every label, best first; per input for a batch'),
    },
  ),
  route(
    'post',
    '/tokenize',
    'tokenize',
    "TEI /tokenize: the endpoint model's tokens of each input",
    {
      name: 'TeiTokenizeRequest',
      schema: teiTokenizeRequestSchema,
      examples: { one: { summary: 'One text', value: { inputs: 'test' } } },
    },
    {
      name: 'TeiTokenizeAnswer',
      schema: z.array(z.array(tokenSchema).describe("One input's tokens")).describe('Per input'),
    },
    teiErrors([400, 404, 422, 503]),
  ),
  route(
    'post',
    '/decode',
    'decode',
    "TEI /decode: the endpoint model's text of token ids",
    {
      name: 'TeiDecodeRequest',
      schema: teiDecodeRequestSchema,
      examples: { one: { summary: 'One list', value: { ids: [101, 2774, 102] } } },
    },
    { name: 'TeiDecodeAnswer', schema: z.array(z.string()).describe('One text per id list') },
    teiErrors([400, 404, 422, 503]),
  ),
  route(
    'get',
    '/info',
    'info',
    'TEI /info: the endpoint, its model and limits (embedding, classifier or reranker)',
    undefined,
    { name: 'TeiInfo', schema: infoSchema },
    teiErrors([404, 422, 503]),
  ),
];
