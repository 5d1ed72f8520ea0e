import { describe, expect, it } from 'vitest';
import { OK } from './load-records.js';
import { SoakTally, bucketBoundMs, latencyPercentileMs } from './soak-tally.js';

describe('SoakTally', () => {
  it('counts outcomes per kind and per minute, with the first message of each failure', () => {
    const tally = new SoakTally(['classification', 'image'], 1_000);
    tally.record('classification', 1_000, 1_010, OK);
    tally.record('classification', 60_990, 61_010, 'HTTP 503 UNAVAILABLE', 'no worker');
    tally.record('classification', 61_000, 61_020, 'HTTP 503 UNAVAILABLE', 'later message');
    tally.record('image', 2_000, 2_500, OK);
    const result = tally.result();
    expect(result.classification).toMatchObject({
      sent: 3,
      ok: 1,
      failed: { 'HTTP 503 UNAVAILABLE': 2 },
      messages: { 'HTTP 503 UNAVAILABLE': 'no worker' },
      perMinute: [
        [1, 0],
        [0, 2],
      ],
    });
    expect(result.image).toMatchObject({ sent: 1, ok: 1, failed: {}, perMinute: [[1, 0]] });
  });

  it('refuses a kind it was not made for', () => {
    expect(() => new SoakTally(['image'], 0).record('generation', 0, 1, OK)).toThrow(
      'unknown kind generation',
    );
  });
});

describe('latencyPercentileMs', () => {
  it('answers within one 5 % bucket of the true percentile', () => {
    const tally = new SoakTally(['qa'], 0);
    for (let ms = 1; ms <= 100; ms++) tally.record('qa', 0, ms, OK);
    const qa = tally.result().qa!;
    const p50 = latencyPercentileMs(qa, 0.5);
    const p99 = latencyPercentileMs(qa, 0.99);
    expect(p50).toBeGreaterThanOrEqual(50);
    expect(p50).toBeLessThanOrEqual(50 * 1.05);
    expect(p99).toBeGreaterThanOrEqual(99);
    expect(p99).toBeLessThanOrEqual(99 * 1.05);
  });

  it('is NaN without answers, and keeps the slowest in the last bucket', () => {
    const tally = new SoakTally(['qa'], 0);
    expect(latencyPercentileMs(tally.result().qa!, 0.5)).toBeNaN();
    tally.record('qa', 0, 10_000_000, OK);
    expect(latencyPercentileMs(tally.result().qa!, 1)).toBe(bucketBoundMs(269));
  });
});
