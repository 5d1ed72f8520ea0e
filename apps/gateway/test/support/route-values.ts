// What the fuzzed routes share: the snapshot's endpoint and model names (fuzz-routes.int-spec.ts)
// and the plausible field values that bodyFrom (hostile-inputs.ts) bends.
import fc from 'fast-check';
import { hostileString } from './hostile-inputs.js';

/** A route to call: method, path (no query) and, for a POST, what its body is drawn from. */
export interface RouteCall {
  method: string;
  path: string;
  body?: fc.Arbitrary<unknown>;
}

/** The snapshot's endpoints, one per task. */
export const ENDPOINTS = [
  'sentiment',
  'embedder',
  'qa',
  'entities',
  'writer',
  'assistant',
  'vision',
  'ranker',
  'raw',
];
/** The snapshot's models (`tensors` is a raw model, for KServe v2). */
export const MODELS = ['bert', 'embed', 'squad', 'ner', 'gpt', 'chat', 'vit', 'rerank', 'tensors'];

// Plausible values; bodyFrom swaps in the implausible ones (0, -1, 1e400, strings…).
export const count = fc.integer({ min: 1, max: 8 });
export const probability = fc.double({ min: 0, max: 1, noNaN: true });
export const texts = fc.oneof(hostileString, fc.array(hostileString, { maxLength: 6 }));
export const flag = fc.boolean();

/** `name` mostly, else another endpoint's name. */
export const modelOr = (name: string) =>
  fc.oneof(
    { arbitrary: fc.constant(name), weight: 4 },
    { arbitrary: fc.constantFrom(...ENDPOINTS), weight: 1 },
  );
/** Token ids, a few out of any vocabulary. */
export const tokenIds = fc.array(fc.oneof(fc.integer({ min: -2, max: 60_000 }), fc.constant(2 ** 40)), {
  maxLength: 12,
});
