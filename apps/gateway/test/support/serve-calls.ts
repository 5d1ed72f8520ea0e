// The /serve routes (every task's endpoint, pinned versions, tokenize) and the probes, metrics,
// docs and jobs routes as fast-check arbitraries; the endpoint names are those of
// fuzz-routes.int-spec.ts's snapshot.
import fc from 'fast-check';
import { bodyFrom, hostileString, segment } from './hostile-inputs.js';
import { imageField } from './hostile-images.js';
import { kserveInferBody } from './kserve-calls.js';
import { ENDPOINTS, type RouteCall, count, flag, probability, texts } from './route-values.js';

/** `/serve` bodies by endpoint, each of the endpoint's own task. */
function serveBodies(images: Buffer[]): Record<string, fc.Arbitrary<unknown>> {
  const classification = bodyFrom(
    {
      text: texts,
      text_pair: texts,
      parameters: bodyFrom({
        top_k: count,
        truncation: flag,
        function_to_apply: fc.constantFrom('softmax', 'sigmoid', 'none', 'x'),
      }),
    },
    ['text'],
  );
  const generation = bodyFrom(
    {
      text: texts,
      stream: flag,
      parameters: bodyFrom({
        max_new_tokens: count,
        temperature: probability,
        top_p: probability,
        top_k: count,
        do_sample: flag,
        seed: fc.integer(),
        stop: texts,
        return_full_text: flag,
      }),
    },
    ['text'],
  );
  return {
    sentiment: classification,
    embedder: bodyFrom(
      {
        text: texts,
        parameters: bodyFrom({ normalize: flag, pooling: fc.constantFrom('mean', 'cls', 'x') }),
      },
      ['text'],
    ),
    qa: bodyFrom(
      {
        question: texts,
        context: texts,
        parameters: bodyFrom({
          top_k: count,
          max_answer_len: count,
          doc_stride: count,
          handle_impossible_answer: flag,
        }),
      },
      ['question', 'context'],
    ),
    entities: bodyFrom(
      {
        text: texts,
        parameters: bodyFrom({
          aggregation_strategy: fc.constantFrom('none', 'simple', 'first', 'average', 'max', 'x'),
          ignore_labels: fc.array(hostileString, { maxLength: 3 }),
        }),
      },
      ['text'],
    ),
    writer: generation,
    assistant: generation,
    vision: bodyFrom({ image: imageField(images), parameters: bodyFrom({ top_k: count }) }, ['image']),
    ranker: bodyFrom({ query: hostileString, texts, return_text: flag, raw_scores: flag }, [
      'query',
      'texts',
    ]),
    raw: kserveInferBody,
  };
}

/** `/serve` calls: each endpoint with its task's bodies or another's, pinned versions, tokenize, unknown names. */
export function serveCalls(images: Buffer[]): fc.Arbitrary<RouteCall> {
  const bodies = serveBodies(images);
  const anyBody = fc.oneof(...Object.values(bodies), fc.jsonValue({ maxDepth: 4 }));
  const version = fc.oneof(
    { arbitrary: fc.constant('1'), weight: 3 },
    { arbitrary: segment(['2', '0', '-1', 'latest']), weight: 1 },
  );
  return fc.tuple(segment(ENDPOINTS), version, fc.nat({ max: 9 })).map(([endpoint, v, pick]) => {
    const own = Object.hasOwn(bodies, endpoint) ? bodies[endpoint] : undefined;
    const body =
      own === undefined
        ? anyBody
        : fc.oneof({ arbitrary: own, weight: 4 }, { arbitrary: anyBody, weight: 1 });
    if (pick < 6) return { method: 'POST', path: `/serve/${endpoint}`, body };
    if (pick < 8) return { method: 'POST', path: `/serve/${endpoint}/${v}`, body };
    if (pick < 9) return { method: 'POST', path: `/serve/${endpoint}/tokenize`, body };
    return { method: 'POST', path: `/serve/${endpoint}/a/b`, body: anyBody };
  });
}

/** Probes, metrics, docs, jobs and paths no route has, by every method. */
export const otherCalls: fc.Arbitrary<RouteCall> = fc.oneof(
  fc
    .constantFrom('/health/live', '/health/ready', '/metrics', '/docs', '/docs/json', '/docs/yaml', '/')
    .map((path) => ({ method: 'GET', path })),
  // The API docs' static files: traversal and bad encodings included.
  segment(['json', 'yaml', 'static/index.html', 'static/..%2f..%2fpackage.json', 'static/%E0%A4%A']).map(
    (file) => ({
      method: 'GET',
      path: `/docs/${file}`,
    }),
  ),
  segment(['0', 'x', '00000000-0000-0000-0000-000000000000']).map((id) => ({
    method: 'GET',
    path: `/jobs/${id}`,
  })),
  fc
    .tuple(
      fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
      segment(['serve/sentiment', 'jobs', 'health', 'metrics', 'v1', 'v2', 'embed', 'docs']),
    )
    .map(([method, path]) => ({
      method,
      path: `/${path}`,
      ...(method === 'GET' || method === 'HEAD' ? {} : { body: fc.jsonValue({ maxDepth: 3 }) }),
    })),
);
