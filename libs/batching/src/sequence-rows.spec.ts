import { describe, expect, it } from 'vitest';
import { padSequenceAxis, realLength } from './sequence-rows.js';

describe('realLength', () => {
  it('ends one past the last position the mask keeps', () => {
    expect(realLength(BigInt64Array.from([1n, 1n, 1n, 0n, 0n]))).toBe(3);
    expect(realLength([1, 1, 1, 1])).toBe(4);
  });

  it('keeps inner zeros (only trailing padding is cut)', () => {
    expect(realLength([1, 0, 1, 0, 0])).toBe(3);
  });

  it('keeps one position of a row whose mask is all zeros', () => {
    expect(realLength([0, 0, 0])).toBe(1);
  });
});

describe('padSequenceAxis', () => {
  it('pads [1, s, h] with zero rows of h up to the width', () => {
    const tensor = { data: Float32Array.from([1, 2, 3, 4]), dims: [1, 2, 2] };
    expect(padSequenceAxis(tensor, 1, 3)).toEqual({
      data: Float32Array.from([1, 2, 3, 4, 0, 0]),
      dims: [1, 3, 2],
    });
  });

  it('pads every block of an axis that is not the second', () => {
    // [1, 2 heads, 2 positions, 1]: each head keeps its 2 positions, then one zero.
    const tensor = { data: Float32Array.from([1, 2, 3, 4]), dims: [1, 2, 2, 1] };
    expect(padSequenceAxis(tensor, 2, 3).data).toEqual(Float32Array.from([1, 2, 0, 3, 4, 0]));
  });

  it('returns the same tensor when it has the width already', () => {
    const tensor = { data: Float32Array.from([1, 2]), dims: [1, 2] };
    expect(padSequenceAxis(tensor, 1, 2)).toBe(tensor);
  });

  it('refuses a tensor wider than the width', () => {
    expect(() => padSequenceAxis({ data: new Float32Array(3), dims: [1, 3] }, 1, 2, 'hidden')).toThrow(
      /hidden axis 1 is 3, wider than 2/,
    );
  });
});
