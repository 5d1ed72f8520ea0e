import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { longestFirstLengths, truncateContent } from './truncate-tokens.js';

describe('longestFirstLengths', () => {
  it('keeps both texts when they fit', () => {
    expect(longestFirstLengths(3, 4, 10)).toEqual([3, 4]);
  });

  it('cuts only the longer text when the shorter fits in what is left', () => {
    expect(longestFirstLengths(3, 20, 10)).toEqual([3, 7]);
    expect(longestFirstLengths(20, 3, 10)).toEqual([7, 3]);
  });

  it('halves the budget when both are long, giving the odd token to the longer (the second on a tie)', () => {
    expect(longestFirstLengths(8, 20, 11)).toEqual([5, 6]);
    expect(longestFirstLengths(20, 8, 11)).toEqual([6, 5]);
    expect(longestFirstLengths(9, 9, 11)).toEqual([5, 6]);
    expect(longestFirstLengths(30, 40, 0)).toEqual([0, 0]);
  });

  it('never exceeds the budget nor grows a text, and cuts nothing that fits', () => {
    fc.assert(
      fc.property(fc.nat(600), fc.nat(600), fc.nat(600), (first, second, budget) => {
        const [a, b] = longestFirstLengths(first, second, budget);
        expect(a).toBeLessThanOrEqual(first);
        expect(b).toBeLessThanOrEqual(second);
        expect(a).toBeGreaterThanOrEqual(0);
        expect(b).toBeGreaterThanOrEqual(0);
        expect(a + b).toBe(Math.min(first + second, budget));
      }),
    );
  });
});

describe('truncateContent', () => {
  it('keeps the start of a single text', () => {
    expect(truncateContent([1, 2, 3, 4], undefined, 2)).toEqual({ first: [1, 2], second: undefined });
  });

  it('cuts pairs longest first', () => {
    expect(truncateContent([1, 2], [3, 4, 5, 6, 7], 4)).toEqual({ first: [1, 2], second: [3, 4] });
  });
});
