import { describe, expect, it } from 'vitest';
import { MAX_TOP_LOGPROBS, tokenLogprob } from './logprobs.js';

/** log-softmax computed the plain way, in doubles. */
function logSoftmax(row: readonly number[]): number[] {
  const max = Math.max(...row);
  const norm = max + Math.log(row.reduce((sum, x) => sum + Math.exp(x - max), 0));
  return row.map((x) => x - norm);
}

describe('tokenLogprob', () => {
  const row = [1.5, -2, 3.25, 0, 3.25, -40];

  it("is the log-softmax of the row at the token, read at the row's offset", () => {
    const logits = Float32Array.from([9, 9, ...row, 9]);
    const expected = logSoftmax(row);
    for (let token = 0; token < row.length; token += 1) {
      expect(tokenLogprob(logits, 2, row.length, token, 0).logprob).toBeCloseTo(expected[token]!, 6);
    }
  });

  it('lists the most likely ids first, the lower id first on ties, with their log-probabilities', () => {
    const result = tokenLogprob(Float32Array.from(row), 0, row.length, 5, 3);
    const expected = logSoftmax(row);
    expect(result.top.map((entry) => entry.id)).toEqual([2, 4, 0]);
    result.top.forEach((entry) => expect(entry.logprob).toBeCloseTo(expected[entry.id]!, 6));
    expect(result.logprob).toBeCloseTo(expected[5]!, 6);
  });

  it('gives no more alternatives than the vocabulary holds, and none for top 0', () => {
    expect(tokenLogprob(Float32Array.from(row), 0, row.length, 0, MAX_TOP_LOGPROBS).top).toHaveLength(6);
    expect(tokenLogprob(Float32Array.from(row), 0, row.length, 0, 0).top).toEqual([]);
  });

  it('sums to probability 1 over the row even where logits are large', () => {
    const big = Float32Array.from({ length: 1000 }, (_, i) => 1000 + (i % 7));
    let total = 0;
    for (let id = 0; id < big.length; id += 1) total += Math.exp(tokenLogprob(big, 0, 1000, id, 0).logprob);
    expect(total).toBeCloseTo(1, 9);
  });

  it('counts -Infinity and NaN logits (a banned token) as probability 0, never as the most likely', () => {
    const logits = Float32Array.from([NaN, -Infinity, 0, 0]);
    const result = tokenLogprob(logits, 0, 4, 1, 4);
    expect(result.logprob).toBe(-Infinity);
    expect(result.top.map((entry) => entry.id)).toEqual([2, 3, 0, 1]);
    expect(result.top[0]!.logprob).toBeCloseTo(Math.log(0.5), 9);
    expect(result.top[2]!.logprob).toBe(-Infinity);
  });

  it('shares the probability among +Infinity logits when no logit is finite', () => {
    const result = tokenLogprob(Float32Array.from([Infinity, -Infinity, Infinity]), 0, 3, 0, 1);
    expect(result.logprob).toBeCloseTo(Math.log(0.5), 9);
    expect(tokenLogprob(Float32Array.from([-Infinity, -Infinity]), 0, 2, 0, 0).logprob).toBe(-Infinity);
  });
});
