import { describe, expect, it } from 'vitest';
import { type LoadFailureKind, loadRetryDelayMs } from './load-retry.js';

const policy = { baseDelayMs: 1000, maxDelayMs: 5000, maxAttempts: 5 };

/** The waits a load sees when its attempts fail as `kinds` say, on a fake clock: when each attempt starts, in ms. */
function attemptStarts(kinds: readonly LoadFailureKind[]): { startsMs: number[]; gaveUp: boolean } {
  let nowMs = 0;
  const startsMs = [nowMs];
  for (const [index, kind] of kinds.entries()) {
    const delayMs = loadRetryDelayMs(index + 1, policy, kind);
    if (delayMs === undefined) return { startsMs, gaveUp: true };
    nowMs += delayMs;
    startsMs.push(nowMs);
  }
  return { startsMs, gaveUp: false };
}

describe('loadRetryDelayMs', () => {
  it('doubles the wait after each failed attempt', () => {
    expect([1, 2, 3].map((attempt) => loadRetryDelayMs(attempt, policy))).toEqual([1000, 2000, 4000]);
  });

  it('never waits longer than maxDelayMs', () => {
    expect(loadRetryDelayMs(4, policy)).toBe(5000);
  });

  it('gives up once maxAttempts attempts have failed', () => {
    expect(loadRetryDelayMs(5, policy)).toBeUndefined();
    expect(loadRetryDelayMs(1, { ...policy, maxAttempts: 1 })).toBeUndefined();
  });

  it('never gives up on a full cache, retrying it at most maxDelayMs apart', () => {
    expect(loadRetryDelayMs(5, policy, 'no-space')).toBe(5000);
    expect(loadRetryDelayMs(1, { ...policy, maxAttempts: 1 }, 'no-space')).toBe(1000);
    expect(loadRetryDelayMs(10_000, policy, 'no-space')).toBe(5000);
  });

  it('keeps a load whose cache stays full trying, at the ordinary backoff, for as long as it stays full', () => {
    const { startsMs, gaveUp } = attemptStarts(Array<LoadFailureKind>(8).fill('no-space'));
    expect(gaveUp).toBe(false);
    expect(startsMs).toEqual([0, 1000, 3000, 7000, 12_000, 17_000, 22_000, 27_000, 32_000]);
  });

  it('gives up a load that fails otherwise once space is back and its attempts are spent', () => {
    const kinds: LoadFailureKind[] = ['no-space', 'no-space', 'no-space', 'no-space', 'no-space', 'ordinary'];
    expect(attemptStarts(kinds)).toEqual({ startsMs: [0, 1000, 3000, 7000, 12_000, 17_000], gaveUp: true });
  });

  it('counts the ordinary failures before a full cache, and retries the full cache past maxAttempts', () => {
    const kinds: LoadFailureKind[] = ['ordinary', 'ordinary', 'ordinary', 'ordinary', 'no-space'];
    expect(attemptStarts(kinds)).toEqual({ startsMs: [0, 1000, 3000, 7000, 12_000, 17_000], gaveUp: false });
  });
});
