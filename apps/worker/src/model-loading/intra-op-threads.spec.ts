import { describe, expect, it } from 'vitest';
import { resolveIntraOpThreads } from './intra-op-threads.js';

describe('resolveIntraOpThreads', () => {
  it('keeps an explicit thread count as it is', () => {
    expect(resolveIntraOpThreads(3, 4, 2)).toBe(3);
  });

  it('gives a single instance every core when unset', () => {
    expect(resolveIntraOpThreads(0, 1, 8)).toBe(8);
  });

  it('shares the cores among instances so that instances × threads never exceeds them', () => {
    expect(resolveIntraOpThreads(0, 2, 8)).toBe(4);
    expect(resolveIntraOpThreads(0, 3, 8)).toBe(2);
    expect(3 * resolveIntraOpThreads(0, 3, 8)).toBeLessThanOrEqual(8);
  });

  it('gives every session at least one thread when instances outnumber the cores', () => {
    expect(resolveIntraOpThreads(0, 4, 2)).toBe(1);
    expect(resolveIntraOpThreads(0, 1, 0)).toBe(1);
  });
});
