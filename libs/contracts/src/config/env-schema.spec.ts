import { describe, expect, it } from 'vitest';
import { MAX_TIMER_MS, millisecondsFromEnv } from './env-schema.js';

describe('millisecondsFromEnv', () => {
  it('reads an integer within its bounds', () => {
    expect(millisecondsFromEnv(100).parse('2500')).toBe(2500);
    expect(millisecondsFromEnv(0, 600_000).parse('600000')).toBe(600_000);
  });

  it('refuses a value below its minimum or above its maximum', () => {
    expect(millisecondsFromEnv(100).safeParse('99').success).toBe(false);
    expect(millisecondsFromEnv(0, 600_000).safeParse('600001').success).toBe(false);
  });

  it('refuses a delay a Node timer cannot keep (it would fire after 1 ms), whatever maximum is asked', () => {
    expect(millisecondsFromEnv(0).parse(String(MAX_TIMER_MS))).toBe(MAX_TIMER_MS);
    expect(millisecondsFromEnv(0).safeParse(String(MAX_TIMER_MS + 1)).success).toBe(false);
    expect(millisecondsFromEnv(0, Number.MAX_SAFE_INTEGER).safeParse('3000000000').success).toBe(false);
  });
});
