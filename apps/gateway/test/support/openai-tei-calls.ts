// The OpenAI-compatible and Text Embeddings Inference routes as fast-check arbitraries, each body
// from the route's own fields, bent by hostile-inputs.ts.
import fc from 'fast-check';
import { bodyFrom, hostileString, segment } from './hostile-inputs.js';
import {
  ENDPOINTS,
  type RouteCall,
  count,
  flag,
  modelOr,
  probability,
  texts,
  tokenIds,
} from './route-values.js';

const streamOptions = bodyFrom({ include_usage: flag });
const message = bodyFrom(
  {
    role: fc.constantFrom('system', 'user', 'assistant', 'tool', 'developer', 'x'),
    content: fc.oneof(
      hostileString,
      fc.array(bodyFrom({ type: fc.constantFrom('text', 'image_url'), text: hostileString }), {
        maxLength: 3,
      }),
    ),
    name: hostileString,
  },
  ['role', 'content'],
);

/** The OpenAI-compatible routes. */
export const openAiCalls: fc.Arbitrary<RouteCall> = fc.oneof(
  fc.constant({
    method: 'POST',
    path: '/v1/embeddings',
    body: bodyFrom(
      {
        model: modelOr('embedder'),
        input: fc.oneof(texts, tokenIds, fc.array(tokenIds, { maxLength: 3 })),
        encoding_format: fc.constantFrom('float', 'base64', 'x'),
        dimensions: count,
        user: hostileString,
      },
      ['model', 'input'],
    ),
  }),
  fc.constant({
    method: 'POST',
    path: '/v1/completions',
    body: bodyFrom(
      {
        model: modelOr('writer'),
        prompt: fc.oneof(hostileString, fc.array(hostileString, { minLength: 1, maxLength: 4 })),
        max_tokens: count,
        temperature: probability,
        top_p: probability,
        n: count,
        stream: flag,
        stream_options: streamOptions,
        logprobs: count,
        echo: flag,
        stop: texts,
        seed: fc.nat(),
        best_of: count,
      },
      ['model', 'prompt'],
    ),
  }),
  fc.constant({
    method: 'POST',
    path: '/v1/chat/completions',
    body: bodyFrom(
      {
        model: modelOr('assistant'),
        messages: fc.array(message, { minLength: 1, maxLength: 4 }),
        max_tokens: count,
        max_completion_tokens: count,
        stream: flag,
        stream_options: streamOptions,
        logprobs: flag,
        top_logprobs: count,
        n: count,
        tools: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 2 }),
        response_format: bodyFrom({ type: fc.constantFrom('text', 'json_object', 'json_schema') }),
        temperature: probability,
        seed: fc.nat(),
      },
      ['model', 'messages'],
    ),
  }),
  fc.constant({ method: 'GET', path: '/v1/models' }),
  segment(ENDPOINTS).map((id) => ({ method: 'GET', path: `/v1/models/${id}` })),
  fc
    .tuple(fc.constantFrom('GET', 'POST', 'DELETE'), segment(['embeddings', 'files', 'models', 'responses']))
    .map(([method, name]) => ({ method, path: `/v1/${name}`, body: fc.jsonValue({ maxDepth: 3 }) })),
);

const truncation = { truncate: flag, truncation_direction: fc.constantFrom('Left', 'Right', 'left', 'x') };
const embedBody = bodyFrom(
  {
    inputs: fc.oneof(texts, fc.array(tokenIds, { maxLength: 3 })),
    normalize: flag,
    dimensions: count,
    model: modelOr('embedder'),
    ...truncation,
  },
  ['inputs'],
);

/** Text Embeddings Inference's routes. */
export const teiCalls: fc.Arbitrary<RouteCall> = fc.oneof(
  fc.constant({ method: 'POST', path: '/embed', body: embedBody }),
  fc.constant({ method: 'POST', path: '/embed_all', body: embedBody }),
  fc.constant({
    method: 'POST',
    path: '/rerank',
    body: bodyFrom(
      {
        query: hostileString,
        texts: fc.array(hostileString, { maxLength: 6 }),
        raw_scores: flag,
        return_text: flag,
        model: modelOr('ranker'),
        ...truncation,
      },
      ['query', 'texts'],
    ),
  }),
  fc.constant({
    method: 'POST',
    path: '/predict',
    body: bodyFrom(
      {
        inputs: fc.oneof(texts, fc.array(fc.array(hostileString, { maxLength: 3 }), { maxLength: 4 })),
        raw_scores: flag,
        model: modelOr('sentiment'),
        ...truncation,
      },
      ['inputs'],
    ),
  }),
  fc.constant({
    method: 'POST',
    path: '/tokenize',
    body: bodyFrom({ inputs: texts, add_special_tokens: flag, model: modelOr('embedder') }, ['inputs']),
  }),
  fc.constant({
    method: 'POST',
    path: '/decode',
    body: bodyFrom(
      {
        ids: fc.oneof(tokenIds, fc.array(tokenIds, { maxLength: 3 })),
        skip_special_tokens: flag,
        model: modelOr('embedder'),
      },
      ['ids'],
    ),
  }),
  fc.constant({ method: 'GET', path: '/info' }),
  fc.constantFrom('GET', 'PUT').map((method) => ({ method, path: '/embed' })),
);
