import { describe, expect, it } from 'vitest';
import { type BatchLimits, resolveBatchLimits } from './batch-limits.js';
import { type InstanceState, type QueuedRequest, decideNextBatch, selectBatchGroup } from './batch-policy.js';

interface Req extends QueuedRequest {
  readonly id: string;
}

/** Requests in arrival order; `tokens` per request, arriving 10 µs apart from t = 0. */
function queueOf(...tokens: number[]): Req[] {
  return tokens.map((t, i) => ({ id: `r${i}`, tokens: t, enqueuedAtMicros: i * 10, deadlineMicros: 1e9 }));
}

const ids = (items: readonly Req[]): string[] => items.map((r) => r.id);
const limitsOf = (overrides: Partial<BatchLimits>): BatchLimits =>
  resolveBatchLimits({ maxBatchTokens: Number.POSITIVE_INFINITY, ...overrides });
const idleBatcher: InstanceState = { freeInstances: 1, busyInstances: 0 };
const underLoad: InstanceState = { freeInstances: 1, busyInstances: 1 };

describe('decideNextBatch', () => {
  it('is idle with an empty queue', () => {
    expect(decideNextBatch([], limitsOf({}), idleBatcher, 0)).toEqual({ kind: 'idle' });
  });

  it('is idle while every instance is busy, however much is queued', () => {
    const state = { freeInstances: 0, busyInstances: 2 };
    expect(decideNextBatch(queueOf(1, 1, 1), limitsOf({ maxBatchSize: 2 }), state, 0)).toEqual({
      kind: 'idle',
    });
  });

  it('dispatches whatever is queued at once when no preferred sizes are set, even under load', () => {
    const decision = decideNextBatch(queueOf(1, 1, 1), limitsOf({ maxBatchSize: 8 }), underLoad, 20);
    expect(decision).toMatchObject({ kind: 'dispatch', reason: 'no-preferred-sizes' });
    expect(decision.kind === 'dispatch' && ids(decision.items)).toEqual(['r0', 'r1', 'r2']);
  });

  it('dispatches a lone request at once when nothing is running, even below every preferred size', () => {
    const limits = limitsOf({ preferredBatchSizes: [4, 8], maxBatchSize: 8, maxQueueDelayMicros: 1000 });
    const decision = decideNextBatch(queueOf(1), limits, { freeInstances: 2, busyInstances: 0 }, 0);
    expect(decision).toMatchObject({ kind: 'dispatch', reason: 'batcher-idle' });
  });

  it('waits until the oldest request has waited maxQueueDelayMicros while another batch runs', () => {
    const limits = limitsOf({ preferredBatchSizes: [4], maxBatchSize: 8, maxQueueDelayMicros: 500 });
    // r0 arrived at 0, r1 at 10: the wait runs from the OLDEST, so until 500.
    expect(decideNextBatch(queueOf(1, 1), limits, underLoad, 20)).toEqual({ kind: 'wait', untilMicros: 500 });
  });

  it('dispatches the partial batch once maxQueueDelayMicros has passed since the oldest arrived', () => {
    const limits = limitsOf({ preferredBatchSizes: [4], maxBatchSize: 8, maxQueueDelayMicros: 500 });
    const decision = decideNextBatch(queueOf(1, 1), limits, underLoad, 500);
    expect(decision).toMatchObject({ kind: 'dispatch', reason: 'max-delay-elapsed' });
    expect(decision.kind === 'dispatch' && decision.items).toHaveLength(2);
  });

  it('dispatches the largest preferred size that what is waiting can form, leaving the rest', () => {
    const limits = limitsOf({ preferredBatchSizes: [2, 4, 8], maxBatchSize: 16, maxQueueDelayMicros: 500 });
    const decision = decideNextBatch(queueOf(1, 1, 1, 1, 1, 1), limits, underLoad, 50);
    expect(decision).toMatchObject({ kind: 'dispatch', reason: 'preferred-size' });
    expect(decision.kind === 'dispatch' && ids(decision.items)).toEqual(['r0', 'r1', 'r2', 'r3']);
  });

  it('dispatches maxBatchSize at once when it is reached, even if that is no preferred size', () => {
    const limits = limitsOf({ preferredBatchSizes: [2], maxBatchSize: 3, maxQueueDelayMicros: 500 });
    const decision = decideNextBatch(queueOf(1, 1, 1, 1), limits, underLoad, 30);
    expect(decision).toMatchObject({ kind: 'dispatch', reason: 'full' });
    expect(decision.kind === 'dispatch' && ids(decision.items)).toEqual(['r0', 'r1', 'r2']);
  });

  it('does not wait for a preferred size the token budget makes unreachable', () => {
    // 4 × 100 tokens > 300: no batch of 4 can hold the 100-token oldest request.
    const limits = limitsOf({ preferredBatchSizes: [4], maxBatchSize: 8, maxBatchTokens: 300 });
    const decision = decideNextBatch(queueOf(100, 100), limits, underLoad, 10);
    expect(decision).toMatchObject({ kind: 'dispatch', reason: 'preferred-unreachable' });
  });

  it('dispatches now rather than wait past a member deadline', () => {
    const limits = limitsOf({ preferredBatchSizes: [4], maxBatchSize: 8, maxQueueDelayMicros: 500 });
    const queue = queueOf(1, 1).map((r, i) => (i === 1 ? { ...r, deadlineMicros: 300 } : r));
    expect(decideNextBatch(queue, limits, underLoad, 20)).toMatchObject({
      kind: 'dispatch',
      reason: 'deadline-near',
    });
  });

  it('never waits while draining', () => {
    const limits = limitsOf({ preferredBatchSizes: [4], maxBatchSize: 8, maxQueueDelayMicros: 500 });
    const decision = decideNextBatch(queueOf(1), limits, { ...underLoad, draining: true }, 0);
    expect(decision).toMatchObject({ kind: 'dispatch', reason: 'draining' });
  });

  it('batches only requests that share the oldest request batchKey', () => {
    const queue = queueOf(1, 1, 1).map((r, i) => ({ ...r, batchKey: i === 1 ? 'b' : 'a' }));
    const decision = decideNextBatch(queue, limitsOf({}), idleBatcher, 30);
    expect(decision.kind === 'dispatch' && ids(decision.items)).toEqual(['r0', 'r2']);
  });
});

describe('selectBatchGroup (padding ratio)', () => {
  const none = Number.POSITIVE_INFINITY;

  it('keeps computed tokens within maxPaddingRatio × real tokens', () => {
    const queue = queueOf(100, 8, 240, 96, 12, 110, 250, 104);
    const group = selectBatchGroup(queue, 32, none, 1.15);
    const longest = Math.max(...group.map((r) => r.tokens));
    const real = group.reduce((sum, r) => sum + r.tokens, 0);
    expect(group.length * longest).toBeLessThanOrEqual(1.15 * real);
    expect(ids(group)).toEqual(['r0', 'r3', 'r5', 'r7']); // 96..110: 4 × 110 = 440 ≤ 1.15 × 410
  });

  it('leaves the far lengths for batches of their own, which the next decisions form', () => {
    const queue = queueOf(100, 8, 240, 96, 12, 110, 250, 104);
    const first = new Set(selectBatchGroup(queue, 32, none, 1.15));
    const rest = queue.filter((r) => !first.has(r));
    expect(ids(selectBatchGroup(rest, 32, none, 1.15))).toEqual(['r1']); // 8 alone: 2 × 12 > 1.15 × 20
    const longOnes = rest.filter((r) => r.tokens > 200);
    expect(ids(selectBatchGroup(longOnes, 32, none, 1.15))).toEqual(['r2', 'r6']);
  });

  it('with a ratio of 1 batches only equal lengths', () => {
    expect(ids(selectBatchGroup(queueOf(16, 17, 16, 15, 16), 8, none, 1))).toEqual(['r0', 'r2', 'r4']);
  });

  it('pads everything that fits the token budget when the ratio is unbounded', () => {
    expect(ids(selectBatchGroup(queueOf(8, 256, 30), 8, none, none))).toEqual(['r0', 'r1', 'r2']);
  });

  it('runs the oldest alone when every other length is too far from it', () => {
    expect(ids(selectBatchGroup(queueOf(10, 200, 300), 8, none, 1.15))).toEqual(['r0']);
  });
});

describe('selectBatchGroup (token budget)', () => {
  it('does not pad short requests to a long one when another grouping avoids it', () => {
    // Arrival order: short, long, short, short. Budget 64: [8, 8, 8] costs 24, any group with 60 > 64.
    const group = selectBatchGroup(queueOf(8, 60, 8, 8), 8, 64);
    expect(ids(group)).toEqual(['r0', 'r2', 'r3']);
  });

  it('keeps batch × longest sequence within maxBatchTokens', () => {
    const queue = queueOf(10, 12, 30, 11, 40, 10, 12);
    const group = selectBatchGroup(queue, 8, 64);
    const longest = Math.max(...group.map((r) => r.tokens));
    expect(group.length * longest).toBeLessThanOrEqual(64);
    expect(ids(group)).toEqual(['r0', 'r1', 'r3', 'r5', 'r6']); // 5 × 12 = 60; a sixth would cost 6 × 30
  });

  it('always includes the oldest request, even when it is the longest', () => {
    const group = selectBatchGroup(queueOf(50, 5, 5, 5, 5, 5), 8, 100);
    expect(ids(group)).toEqual(['r0', 'r1']); // 2 × 50 = 100; the five short ones alone would starve r0
  });

  it('runs a single request longer than the budget alone', () => {
    expect(ids(selectBatchGroup(queueOf(500, 4, 4), 8, 128))).toEqual(['r0']);
  });

  it("prefers requests of the oldest request's own length to older ones that would need padding", () => {
    // 3 fit in 30 only at length 10: r2 and r3 (10 tokens) join r0 before r1 (5, padded to 10).
    expect(ids(selectBatchGroup(queueOf(10, 5, 10, 10, 20), 3, 30))).toEqual(['r0', 'r2', 'r3']);
  });

  it('among requests equally near in length, takes the older first', () => {
    expect(ids(selectBatchGroup(queueOf(10, 12, 8, 12, 8), 3, Number.POSITIVE_INFINITY))).toEqual([
      'r0',
      'r1',
      'r2',
    ]);
  });

  it('takes everything when nothing binds, in arrival order', () => {
    expect(ids(selectBatchGroup(queueOf(3, 1, 2), 8, Number.POSITIVE_INFINITY))).toEqual(['r0', 'r1', 'r2']);
  });
});
