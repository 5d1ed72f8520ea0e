import { describe, expect, it } from 'vitest';
import { loadRetryDelayMs } from './load-retry.js';

const policy = { baseDelayMs: 1000, maxDelayMs: 5000, maxAttempts: 5 };

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
});
