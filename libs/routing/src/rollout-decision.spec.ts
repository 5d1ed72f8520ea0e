import { describe, expect, it } from 'vitest';
import {
  type LatencyBuckets,
  type RolloutWindow,
  decideRolloutStep,
  quantileMs,
  windowNumbers,
} from './rollout-decision.js';

const BOUNDS = [0.01, 0.05, 0.1, 0.25, 0.5, Infinity];
/** A histogram with `counts[i]` requests in bucket i (not cumulative). */
const histogram = (...counts: number[]): LatencyBuckets => ({
  bounds: BOUNDS,
  cumulative: counts.map((_, i) => counts.slice(0, i + 1).reduce((a, b) => a + b, 0)),
});
const fast = (requests: number) => histogram(requests, 0, 0, 0, 0, 0); // all under 10 ms

const thresholds = { maxErrorRate: 0.01, maxP99Ms: 250, minAgreement: 0.95, minRequests: 100 };
const window = (overrides: Partial<RolloutWindow>): RolloutWindow => ({
  requests: 1000,
  errors: 0,
  latency: fast(1000),
  agreeing: 0,
  disagreeing: 0,
  ...overrides,
});

describe('quantileMs', () => {
  it.each([
    ['inside the first bucket', histogram(100, 0, 0, 0, 0, 0), 0.5, 5],
    ['interpolated in a later bucket', histogram(50, 50, 0, 0, 0, 0), 0.99, 49.2],
    ['the last finite bound when in +Inf', histogram(0, 0, 0, 0, 0, 10), 0.99, 500],
  ])('%s', (_what, latency, q, expected) => {
    expect(quantileMs(latency, q)).toBeCloseTo(expected, 6);
  });

  it('is undefined for an empty histogram', () => {
    expect(quantileMs(histogram(0, 0, 0, 0, 0, 0), 0.99)).toBeUndefined();
  });
});

describe('decideRolloutStep, live phase', () => {
  it.each<[string, Partial<RolloutWindow>, 'promote' | 'hold' | 'rollback', RegExp]>([
    [
      'a clean window with enough traffic',
      {},
      'promote',
      /error rate 0\.00 %, p99 9\.9 ms over 1000 requests/,
    ],
    ['errors above the limit', { errors: 20 }, 'rollback', /error rate 2\.00 % \(20 of 1000\) above 1\.00 %/],
    ['errors exactly at the limit', { errors: 10 }, 'promote', /over 1000 requests/],
    [
      'p99 above the limit',
      { latency: histogram(900, 50, 0, 0, 50, 0) },
      'rollback',
      /p99 .* ms above 250 ms/,
    ],
    [
      'too little traffic',
      { requests: 40, latency: fast(40) },
      'hold',
      /40 requests, fewer than the 100 needed/,
    ],
    [
      'a breach on little traffic that more requests could not undo (5 failed, 1 in 100 may)',
      { requests: 40, errors: 5, latency: fast(40) },
      'rollback',
      /error rate 12\.5 % \(5 of 40\) above 1\.00 % \(40 requests, fewer than the 100 needed, but more could not/,
    ],
    [
      'a failure in the first requests that the next ones could outweigh: minRequests holds',
      { requests: 3, errors: 1, latency: fast(3) },
      'hold',
      /3 requests, fewer than the 100 needed/,
    ],
    [
      'a slow request among the first few: the p99 of 100 could still be fast',
      { requests: 10, latency: histogram(9, 0, 0, 0, 1, 0) },
      'hold',
      /10 requests, fewer than the 100 needed/,
    ],
    [
      'slow requests among the first few, more than 1 in 100: p99 is already above the limit',
      { requests: 10, latency: histogram(8, 0, 0, 0, 2, 0) },
      'rollback',
      /p99 .* ms above 250 ms \(10 requests, fewer than the 100 needed/,
    ],
    [
      'one disagreeing mirrored row among the first few: agreement could still reach 95 %',
      { requests: 10, latency: fast(10), agreeing: 3, disagreeing: 1 },
      'hold',
      /10 requests, fewer than the 100 needed/,
    ],
    [
      'mirrored rows that disagree',
      { agreeing: 80, disagreeing: 20 },
      'rollback',
      /agreement 80\.0 % below 95\.0 %/,
    ],
    ['mirrored rows that agree', { agreeing: 99, disagreeing: 1 }, 'promote', /over 1000 requests/],
  ])('%s → %s', (_what, overrides, decision, reason) => {
    const verdict = decideRolloutStep(window(overrides), thresholds, 'live');
    expect(verdict.decision).toBe(decision);
    expect(verdict.reason).toMatch(reason);
  });
});

describe('decideRolloutStep, shadow phase (no live traffic yet)', () => {
  it.each<[string, Partial<RolloutWindow>, 'promote' | 'hold' | 'rollback', RegExp]>([
    [
      'agreeing rows, enough of them',
      { agreeing: 190, disagreeing: 10 },
      'promote',
      /agreement 95\.0 % over 200/,
    ],
    ['disagreeing rows', { agreeing: 50, disagreeing: 50 }, 'rollback', /agreement 50\.0 % below 95\.0 %/],
    [
      'a disagreeing row among the first few: the next ones could still agree',
      { agreeing: 2, disagreeing: 1 },
      'hold',
      /3 mirrored rows, fewer than the 100/,
    ],
    [
      'more disagreeing rows than 100 may hold, before there are 100',
      { agreeing: 4, disagreeing: 6 },
      'rollback',
      /agreement 40\.0 % below 95\.0 % over 10 mirrored rows \(10 mirrored rows, fewer than the 100 needed/,
    ],
    [
      'a failed mirror among the first few: the next ones could outweigh it',
      { agreeing: 20, disagreeing: 0, mirrored: 21, mirrorErrors: 1 },
      'hold',
      /20 mirrored rows, fewer than the 100/,
    ],
    [
      'too few mirrored rows',
      { agreeing: 30, disagreeing: 0 },
      'hold',
      /30 mirrored rows, fewer than the 100/,
    ],
    [
      'sampled generations only: uncompared, so they hold and never roll back',
      { agreeing: 0, disagreeing: 0, uncompared: 400, mirrored: 400 },
      'hold',
      /0 mirrored rows, fewer than the 100 needed \(400 sampled without a seed were not compared/,
    ],
    [
      'mirrors that fail, before any agreement is looked at',
      { agreeing: 200, disagreeing: 0, mirrored: 200, mirrorErrors: 20 },
      'rollback',
      /mirror error rate 10\.0 % \(20 of 200\) above 1\.00 %/,
    ],
    [
      'answered mirrors of a compared endpoint that compared no rows (generation, image)',
      { mirrored: 150, mirrorErrors: 0, agreeing: 0, disagreeing: 0 },
      'hold',
      /0 mirrored rows, fewer than the 100 needed/,
    ],
    [
      'answered mirrors of an endpoint whose answers are not compared, enough of them',
      { comparesAnswers: false, mirrored: 150, mirrorErrors: 1 },
      'promote',
      /149 answered mirrors/,
    ],
    [
      'answered mirrors of an endpoint whose answers are not compared, too few',
      { comparesAnswers: false, mirrored: 50, mirrorErrors: 0 },
      'hold',
      /50 answered mirrors, fewer than the 100 needed/,
    ],
  ])('%s → %s', (_what, overrides, decision, reason) => {
    const verdict = decideRolloutStep(
      window({ requests: 0, latency: fast(0), ...overrides }),
      thresholds,
      'shadow',
    );
    expect(verdict.decision).toBe(decision);
    expect(verdict.reason).toMatch(reason);
  });
});

describe('windowNumbers', () => {
  it('works out the rates and p99 of a window, null where nothing was measured', () => {
    expect(
      windowNumbers(
        window({
          requests: 200,
          errors: 2,
          latency: fast(200),
          agreeing: 9,
          disagreeing: 1,
          uncompared: 4,
          mirrored: 14,
        }),
      ),
    ).toEqual({
      requests: 200,
      errors: 2,
      errorRate: 0.01,
      p99Ms: expect.closeTo(9.9, 6) as number,
      mirrored: 14,
      mirrorErrors: 0,
      agreeing: 9,
      disagreeing: 1,
      agreement: 0.9,
      uncompared: 4,
      comparesAnswers: true,
    });
    expect(windowNumbers(window({ requests: 0, latency: fast(0), comparesAnswers: false }))).toMatchObject({
      errorRate: null,
      p99Ms: null,
      agreement: null,
      comparesAnswers: false,
    });
  });
});
