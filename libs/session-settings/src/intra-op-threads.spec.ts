import { describe, expect, it } from 'vitest';
import { resolveIntraOpThreads, resolveSoloThreads } from './intra-op-threads.js';

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

describe('resolveSoloThreads', () => {
  it('gives a thread per core when unset and the cores are shared among instances', () => {
    expect(resolveSoloThreads(0, 2, 2)).toBe(2);
    expect(resolveSoloThreads(0, 4, 8)).toBe(8);
    expect(resolveSoloThreads(0, 3, 2)).toBe(2);
  });

  it('gives none to a single instance, which already has every core', () => {
    expect(resolveSoloThreads(0, 1, 8)).toBe(0);
  });

  it('gives none when the thread count is set: it is kept as given', () => {
    expect(resolveSoloThreads(1, 2, 2)).toBe(0);
  });

  it('gives none on one core, where an instance already has it', () => {
    expect(resolveSoloThreads(0, 2, 1)).toBe(0);
    expect(resolveSoloThreads(0, 2, 0)).toBe(0);
  });
});
