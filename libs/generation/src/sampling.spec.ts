import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expNegative } from './fast-exp.js';
import { createPrng } from './prng.js';
import { argmax, createTokenSampler } from './sampling.js';
import { highestLogitIds } from './top-k.js';

const VOCAB = 50257;

/** A GPT-2-wide row of pseudo-random logits (deterministic). */
function wideRow(seed: number): Float32Array {
  const random = createPrng(seed);
  return Float32Array.from({ length: VOCAB }, () => (random() - 0.5) * 20);
}

/**
 * The nucleus by a full sort: the ids top_k then top_p keep (reference for the fast paths). top_p
 * is raised by 1e-9 so that sums rounded in another order never make the reference too small.
 */
function referenceCandidates(
  logits: number[],
  temperature: number,
  topK: number,
  requestedTopP: number,
): Set<number> {
  const topP = Math.min(1, requestedTopP + 1e-9);
  const order = logits.map((_, i) => i).sort((a, b) => logits[b]! - logits[a]! || a - b);
  const kept = topK > 0 ? order.slice(0, topK) : order;
  const max = logits[kept[0]!]!;
  const weights = kept.map((i) => Math.exp((logits[i]! - max) / temperature));
  const total = weights.reduce((a, b) => a + b, 0);
  let sum = 0;
  for (let j = 0; j < kept.length; j += 1) {
    sum += weights[j]!;
    if (sum >= total * topP) return new Set(kept.slice(0, j + 1));
  }
  return new Set(kept);
}

const logitsArb = fc.array(fc.float({ min: -20, max: 20, noNaN: true, noDefaultInfinity: true }), {
  minLength: 1,
  maxLength: 40,
});

describe('createTokenSampler: greedy', () => {
  it('picks the highest logit of the row at the offset, the lowest id on ties', () => {
    const logits = Float32Array.from([9, 9, 9, 1, 5, 3, 5, 0]);
    const sampler = createTokenSampler({ doSample: false, temperature: 1, topK: 0, topP: 1 });
    expect(sampler.pick(logits, 0, 4)).toBe(0);
    expect(sampler.pick(logits, 4, 4)).toBe(0);
    expect(sampler.pick(Float32Array.from([-Infinity, NaN, -3, -3]), 0, 4)).toBe(2);
  });

  it('is greedy for temperature 0 and for top_k 1, whatever the seed', () => {
    const row = wideRow(7);
    const best = argmax(row, 0, VOCAB);
    for (const params of [
      { doSample: true, temperature: 0, topK: 0, topP: 1, seed: 1 },
      { doSample: true, temperature: 1.5, topK: 1, topP: 1, seed: 2 },
    ]) {
      expect(createTokenSampler(params).pick(row, 0, VOCAB)).toBe(best);
    }
  });

  it('equals a full sort', () => {
    fc.assert(
      fc.property(logitsArb, (values) => {
        const expected = values.map((_, i) => i).sort((a, b) => values[b]! - values[a]! || a - b)[0];
        expect(argmax(Float32Array.from(values), 0, values.length)).toBe(expected);
      }),
    );
  });
});

describe('createTokenSampler: sampling', () => {
  it('gives the same picks for the same seed and logits, other picks for another seed', () => {
    const rows = [wideRow(1), wideRow(2), wideRow(3)];
    for (const [topK, topP] of [
      [0, 1],
      [50, 1],
      [0, 0.9],
      [50, 0.9],
    ] as const) {
      const picks = (seed: number) => {
        const sampler = createTokenSampler({ doSample: true, temperature: 0.8, topK, topP, seed });
        return Array.from({ length: 30 }, (_, i) => sampler.pick(rows[i % 3]!, 0, VOCAB));
      };
      expect(picks(42)).toEqual(picks(42));
      expect(picks(42)).not.toEqual(picks(43));
    }
  });

  it('follows the softmax distribution', () => {
    const logits = Float32Array.from([Math.log(0.5), Math.log(0.3), Math.log(0.2), -Infinity]);
    const sampler = createTokenSampler({ doSample: true, temperature: 1, topK: 0, topP: 1, seed: 5 });
    const counts = [0, 0, 0, 0];
    const draws = 20_000;
    for (let i = 0; i < draws; i += 1) counts[sampler.pick(logits, 0, 4)]! += 1;
    expect(counts[0]! / draws).toBeCloseTo(0.5, 1);
    expect(counts[1]! / draws).toBeCloseTo(0.3, 1);
    expect(counts[2]! / draws).toBeCloseTo(0.2, 1);
    expect(counts[3]).toBe(0);
  });

  it('sharpens with a low temperature and renormalizes within top_k', () => {
    const logits = Float32Array.from([2, 1, 0, 3]);
    const cold = createTokenSampler({ doSample: true, temperature: 0.05, topK: 0, topP: 1, seed: 9 });
    const top2 = createTokenSampler({ doSample: true, temperature: 1, topK: 2, topP: 1, seed: 9 });
    const coldPicks = new Set<number>();
    const top2Counts = [0, 0, 0, 0];
    for (let i = 0; i < 5000; i += 1) {
      coldPicks.add(cold.pick(logits, 0, 4));
      top2Counts[top2.pick(logits, 0, 4)]! += 1;
    }
    expect([...coldPicks]).toEqual([3]);
    expect(top2Counts[1]! + top2Counts[2]!).toBe(0);
    // e^3 / (e^3 + e^2)
    expect(top2Counts[3]! / 5000).toBeCloseTo(Math.exp(3) / (Math.exp(3) + Math.exp(2)), 1);
  });

  it('draws within the nucleus in proportion to the renormalized probabilities', () => {
    const logits = Float32Array.from([0.1, 0.4, 0.2, 0.3].map(Math.log));
    const sampler = createTokenSampler({ doSample: true, temperature: 1, topK: 0, topP: 0.75, seed: 3 });
    const counts = [0, 0, 0, 0];
    const draws = 20_000;
    for (let i = 0; i < draws; i += 1) counts[sampler.pick(logits, 0, 4)]! += 1;
    expect(counts[0]).toBe(0);
    expect(counts[1]! / draws).toBeCloseTo(4 / 9, 1);
    expect(counts[2]! / draws).toBeCloseTo(2 / 9, 1);
    expect(counts[3]! / draws).toBeCloseTo(3 / 9, 1);
  });

  it('keeps the lowest id of tied tokens at the edge of the nucleus', () => {
    const logits = Float32Array.from([0.25, 0.5, 0.25].map(Math.log));
    for (const topK of [0, 3]) {
      const sampler = createTokenSampler({ doSample: true, temperature: 1, topK, topP: 0.6, seed: 4 });
      const picks = new Set(Array.from({ length: 2000 }, () => sampler.pick(logits, 0, 3)));
      expect([...picks].sort()).toEqual([0, 1]);
    }
  });

  it('only picks ids that top_k then top_p keep (full-sort reference)', () => {
    fc.assert(
      fc.property(
        logitsArb,
        fc.double({ min: 0.1, max: 3, noNaN: true }),
        fc.nat(10),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        fc.nat(),
        (values, temperature, topK, topP, seed) => {
          const allowed = referenceCandidates(values, temperature, topK, topP);
          const sampler = createTokenSampler({ doSample: true, temperature, topK, topP, seed });
          const logits = Float32Array.from([99, ...values]);
          for (let i = 0; i < 20; i += 1) {
            expect(allowed.has(sampler.pick(logits, 1, values.length))).toBe(true);
          }
        },
      ),
    );
  });

  it('finds the nucleus of a wide row as a full sort does', () => {
    for (const [seed, temperature, topP] of [
      [1, 1, 0.9],
      [2, 0.3, 0.5],
      [3, 5, 0.99],
      [4, 1, 0.05],
    ] as const) {
      const row = wideRow(seed);
      const allowed = referenceCandidates(Array.from(row), temperature, 0, topP);
      const sampler = createTokenSampler({ doSample: true, temperature, topK: 0, topP, seed });
      for (let i = 0; i < 50; i += 1) expect(allowed.has(sampler.pick(row, 0, VOCAB))).toBe(true);
    }
  });

  it('draws a random seed when none is given', () => {
    const row = wideRow(11);
    const picks = new Set<number>();
    for (let i = 0; i < 5; i += 1) {
      picks.add(createTokenSampler({ doSample: true, temperature: 1, topK: 0, topP: 1 }).pick(row, 0, VOCAB));
    }
    expect(picks.size).toBeGreaterThan(1);
  });
});

describe('createTokenSampler: odd rows', () => {
  it('never picks -Infinity or NaN logits, and answers for rows without a finite one', () => {
    for (const [topK, topP] of [
      [0, 1],
      [2, 1],
      [0, 0.5],
    ] as const) {
      const sampler = createTokenSampler({ doSample: true, temperature: 1, topK, topP, seed: 8 });
      for (let i = 0; i < 200; i += 1) {
        expect([1, 3]).toContain(sampler.pick(Float32Array.from([-Infinity, 0, NaN, 0, -Infinity]), 0, 5));
      }
      expect(sampler.pick(Float32Array.from([-Infinity, -Infinity]), 0, 2)).toBe(0);
      expect(sampler.pick(Float32Array.from([0, Infinity, 1]), 0, 3)).toBe(1);
    }
  });
});

describe('expNegative', () => {
  it('matches Math.exp within 1e-9 relative error, and is 0 past the doubles', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 744, noNaN: true }), (z) => {
        const expected = Math.exp(-z);
        // Past z ≈ 708 the results are subnormal: their spacing is Number.MIN_VALUE, so the bound
        // there is a few of those rather than a relative one.
        const tolerance = Math.max(expected * 1e-9, 4 * Number.MIN_VALUE);
        expect(Math.abs(expNegative(z) - expected)).toBeLessThanOrEqual(tolerance);
      }),
      { numRuns: 2000 },
    );
    expect(expNegative(0)).toBe(1);
    expect(expNegative(745)).toBe(0);
    expect(expNegative(Infinity)).toBe(0);
    expect(expNegative(NaN)).toBe(0);
  });
});

describe('highestLogitIds', () => {
  it('equals a full sort, lowest id first on ties', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 60 }),
        fc.nat(),
        (values, k) => {
          const count = 1 + (k % values.length);
          const expected = values
            .map((_, i) => i)
            .sort((a, b) => values[b]! - values[a]! || a - b)
            .slice(0, count);
          expect(Array.from(highestLogitIds(Float32Array.from(values), 0, values.length, count))).toEqual(
            expected,
          );
        },
      ),
    );
  });
});

describe('createPrng', () => {
  it('is uniform-looking in [0, 1) and repeats for a seed', () => {
    const a = createPrng(2 ** 53 - 1);
    const b = createPrng(2 ** 53 - 1);
    let sum = 0;
    for (let i = 0; i < 10_000; i += 1) {
      const value = a();
      expect(value).toBe(b());
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
      sum += value;
    }
    expect(sum / 10_000).toBeCloseTo(0.5, 1);
    expect(createPrng(0)()).not.toBe(createPrng(2 ** 32)());
  });

  it('gives seeds that differ only in their high or low half streams of their own', () => {
    // 2**32 and 0x9e3779b1 gave one stream when the halves were folded into one 32-bit start.
    const first = (seed: number) => {
      const next = createPrng(seed);
      return [next(), next(), next()];
    };
    const seeds = [0, 1, 2 ** 32, 0x9e3779b1, 2 ** 32 + 1, 2 ** 52, 2 ** 53 - 1, 7];
    const streams = new Set(seeds.map((seed) => first(seed).join(',')));
    expect(streams.size).toBe(seeds.length);
  });
});
