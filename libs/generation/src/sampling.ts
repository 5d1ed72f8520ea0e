// Next-token choice from one row of logits: greedy, or temperature / top-k / top-p sampling with a
// seeded PRNG (the same seed and the same logits give the same picks).
import { randomInt } from 'node:crypto';
import { drawFromNucleus, drawFromRow } from './full-row.js';
import { type GenerationParams } from './params.js';
import { createPrng } from './prng.js';
import { highestLogitIds } from './top-k.js';

/** Picks next tokens for one sequence (it keeps its PRNG state from pick to pick). */
export interface TokenSampler {
  /** Picks the next id from logits[offset .. offset+vocabSize). Greedy: highest logit, lowest id on ties. */
  pick(logits: Float32Array, offset: number, vocabSize: number): number;
}

/** Sampling parameters of {@link createTokenSampler}. */
export type SamplingParams = Pick<GenerationParams, 'doSample' | 'temperature' | 'topK' | 'topP' | 'seed'>;

/** Highest logit, lowest id on ties (NaN never wins). */
export function argmax(logits: Float32Array, offset: number, vocabSize: number): number {
  let best = offset;
  let bestLogit = -Infinity;
  const end = offset + vocabSize;
  for (let i = offset; i < end; i += 1) {
    const logit = logits[i]!;
    if (logit > bestLogit) {
      bestLogit = logit;
      best = i;
    }
  }
  return best - offset;
}

/**
 * A sampler for one sequence. Greedy unless doSample with a temperature > 0. Sampling: logits
 * divided by temperature, then the top_k most likely tokens (0: all), then the nucleus (the
 * smallest set of most likely tokens whose probability sum reaches top_p, at least one token,
 * probabilities renormalized after top_k like Hugging Face's warpers), then one draw. Seeded:
 * same seed ⇒ same picks; no seed ⇒ a random seed.
 */
export function createTokenSampler(params: SamplingParams): TokenSampler {
  if (!params.doSample || !(params.temperature > 0)) {
    return { pick: argmax };
  }
  const random = createPrng(params.seed ?? randomInt(2 ** 48 - 1));
  const { temperature, topK, topP } = params;
  return {
    pick(logits, offset, vocabSize) {
      if (topK === 1) return argmax(logits, offset, vocabSize);
      if (topK > 0 && topK < vocabSize) {
        const ids = highestLogitIds(logits, offset, vocabSize, topK);
        return drawSorted(ids, logits, offset, temperature, topP, random());
      }
      const best = argmax(logits, offset, vocabSize);
      const max = logits[offset + best]!;
      // No finite logit (all -Infinity or NaN), or an infinite one: nothing to weigh.
      if (!Number.isFinite(max)) return best;
      if (topP < 1) return drawFromNucleus(logits, offset, vocabSize, max, temperature, topP, random());
      return drawFromRow(logits, offset, vocabSize, max, temperature, random());
    },
  };
}

/** Draws among candidate ids sorted most likely first, after cutting them to the nucleus. */
function drawSorted(
  ids: Int32Array,
  logits: Float32Array,
  offset: number,
  temperature: number,
  topP: number,
  u: number,
): number {
  const max = logits[offset + ids[0]!]!;
  const weights = new Float64Array(ids.length);
  let total = 0;
  for (let j = 0; j < ids.length; j += 1) {
    weights[j] = weight(logits[offset + ids[j]!]!, max, temperature);
    total += weights[j]!;
  }
  return drawPrefix(ids, weights, nucleusLength(weights, total * topP), u);
}

/** exp((logit - max) / temperature): an unnormalized probability, 0 for -Infinity and NaN. */
function weight(logit: number, max: number, temperature: number): number {
  const w = Math.exp((logit - max) / temperature);
  return w > 0 ? w : 0;
}

/** How many of the sorted weights make the nucleus: the shortest prefix whose sum reaches `wanted` (at least 1). */
function nucleusLength(weights: Float64Array, wanted: number): number {
  let sum = 0;
  for (let j = 0; j < weights.length; j += 1) {
    sum += weights[j]!;
    if (sum >= wanted) return j + 1;
  }
  return Math.max(1, weights.length);
}

/** Draws among the first `length` candidates, in proportion to their weights. */
function drawPrefix(ids: Int32Array, weights: Float64Array, length: number, u: number): number {
  let total = 0;
  for (let j = 0; j < length; j += 1) total += weights[j]!;
  let target = u * total;
  for (let j = 0; j < length; j += 1) {
    target -= weights[j]!;
    if (target < 0) return ids[j]!;
  }
  // Rounding (or all weights 0): the last candidate with any weight, else the most likely.
  for (let j = length - 1; j >= 0; j -= 1) if (weights[j]! > 0) return ids[j]!;
  return ids[0]!;
}
