import { describe, expect, it } from 'vitest';
import {
  NO_SPACE_MAX_DELAY_MS,
  noSpaceRetryDelayMs,
  noSpaceRetryingReason,
  noSpaceStatusReason,
} from './space-wait.js';

describe('noSpaceRetryDelayMs', () => {
  it('waits the preparation backoff, doubling after each try that found the cache full', () => {
    expect([1, 2, 3, 4].map((failures) => noSpaceRetryDelayMs(failures, 2000))).toEqual([
      2000, 4000, 8000, 16_000,
    ]);
  });

  it('never waits longer than 30 s, however long the cache stays full', () => {
    expect(noSpaceRetryDelayMs(5, 2000)).toBe(NO_SPACE_MAX_DELAY_MS);
    expect(noSpaceRetryDelayMs(100_000, 2000)).toBe(NO_SPACE_MAX_DELAY_MS);
    expect(noSpaceRetryDelayMs(1, 120_000)).toBe(NO_SPACE_MAX_DELAY_MS);
  });

  it('waits at least a second when the preparation backoff is 0, rather than spin on a full disk', () => {
    expect(noSpaceRetryDelayMs(1, 0)).toBe(1000);
    expect(noSpaceRetryDelayMs(2, 0)).toBe(2000);
  });
});

describe('the reasons of a model waiting for space', () => {
  it('keeps the store reason and says when the next try comes and that tries go on', () => {
    const reason =
      'artifact: no space left on device in the artifact cache /c while writing file:///m.onnx; the partial copy was removed';
    expect(noSpaceStatusReason(reason, 4000)).toBe(`${reason} (retrying in 4 s, and until space returns)`);
    expect(noSpaceStatusReason(reason, 1500)).toMatch(/\(retrying in 1\.5 s, and until space returns\)$/);
  });

  it('says a try under way follows one that found no space', () => {
    expect(noSpaceRetryingReason(3)).toBe('retrying after no space left on device (try 4)');
  });
});
