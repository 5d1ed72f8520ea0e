import { ErrorCode } from '@modelgate/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { embed, normalizeL2, shortenEmbedding, tokenEmbeddings } from './embed.js';

// Two inputs, three positions, two dims: row 0 has two real tokens, row 1 has three.
const HIDDEN = Float32Array.from([1, 2, 3, 4, 100, 100, 1, 1, 2, 2, 3, 3]);
const MASK = BigInt64Array.from([1n, 1n, 0n, 1n, 1n, 1n]);

describe('embed', () => {
  it('mean-pools over real tokens only, ignoring padding', () => {
    expect(embed(HIDDEN, [2, 3, 2], MASK, { pooling: 'mean' })).toEqual([
      [2, 3],
      [2, 2],
    ]);
  });

  it('takes the first token for cls pooling', () => {
    expect(embed(HIDDEN, [2, 3, 2], MASK, { pooling: 'cls' })).toEqual([
      [1, 2],
      [1, 1],
    ]);
  });

  it('L2-normalizes when asked', () => {
    const [first = []] = embed(HIDDEN, [2, 3, 2], MASK, { normalize: true });
    expect(first[0]).toBeCloseTo(2 / Math.sqrt(13), 12);
    expect(first[1]).toBeCloseTo(3 / Math.sqrt(13), 12);
  });

  it('pools a row without real tokens to zeros, not NaN, and accepts a numeric mask', () => {
    expect(embed([1, 2, 3, 4], [1, 2, 2], [0, 0], { normalize: true })).toEqual([[0, 0]]);
  });

  it('only normalizes an already pooled [n, hidden] output', () => {
    expect(embed([3, 4], [1, 2], undefined, { normalize: true })).toEqual([[0.6, 0.8]]);
  });

  it('throws INTERNAL for inconsistent dims or mask', () => {
    const internal: unknown = expect.objectContaining({ code: ErrorCode.INTERNAL });
    expect(() => embed(HIDDEN, [2, 3, 3], MASK)).toThrow(internal);
    expect(() => embed(HIDDEN, [2, 3, 2], [1, 1])).toThrow(/attention mask has 2 values/);
    expect(() => embed(HIDDEN, [12], MASK)).toThrow(internal);
  });

  it('gives unit vectors when normalizing (property)', () => {
    const value = fc.float({ min: -100, max: 100, noNaN: true });
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 16 }), (vector) => {
        const norm = Math.hypot(...normalizeL2([...vector]));
        if (vector.some((v) => Math.abs(v) > 1e-6)) expect(norm).toBeCloseTo(1, 9);
      }),
    );
  });
});

describe('tokenEmbeddings', () => {
  it("answers every real token's vector per row, in order, padding left out", () => {
    // HIDDEN is [2, 3, 2]; MASK leaves out row 0's last position.
    expect(tokenEmbeddings(HIDDEN, [2, 3, 2], MASK)).toEqual([
      [
        [1, 2],
        [3, 4],
      ],
      [
        [1, 1],
        [2, 2],
        [3, 3],
      ],
    ]);
    const unit = tokenEmbeddings(HIDDEN, [2, 3, 2], MASK, true);
    for (const vector of unit.flat()) expect(Math.hypot(...vector)).toBeCloseTo(1, 6);
  });

  it('refuses a pooled [n, hidden] output, which has no token vectors', () => {
    expect(() => tokenEmbeddings(HIDDEN, [6, 2], undefined)).toThrow(/outputs pooled embeddings/);
  });
});

describe('shortenEmbedding', () => {
  it('keeps the first dimensions, normalized after the cut when asked, and refuses more than there are', () => {
    expect(shortenEmbedding([3, 4, 12], 2, false)).toEqual([3, 4]);
    expect(shortenEmbedding([3, 4, 12], 2, true)).toEqual([0.6, 0.8]);
    expect(shortenEmbedding([3, 4, 12], undefined, false)).toEqual([3, 4, 12]);
    expect(() => shortenEmbedding([3, 4], 3, true)).toThrow("dimensions: 3 is more than the model's 2");
  });
});
