import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { describe, expect, it, vi } from 'vitest';
import { type BatchLimits } from './batch-limits.js';
import { FakeClock } from './clock.js';
import { type BatchInfo, type EnqueueOptions } from './batcher-options.js';
import { DynamicBatcher } from './dynamic-batcher.js';
import { CancelSource } from './cancel-signal.js';

interface RunningBatch {
  readonly items: string[];
  readonly info: BatchInfo;
  readonly resolve: (results: readonly string[]) => void;
  readonly reject: (error: unknown) => void;
}

interface Outcome {
  status: 'pending' | 'fulfilled' | 'rejected';
  value?: string;
  error?: ModelgateError;
}

/** Settles every promise reaction queued so far (microtasks only; no timers). */
async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

/** A batcher on a fake clock whose batches stay running until the test finishes them. */
function setUp(limits: Partial<BatchLimits> = {}, instances = 1) {
  const clock = new FakeClock();
  const batches: RunningBatch[] = [];
  const observed: BatchInfo[] = [];
  const batcher = new DynamicBatcher<string, string>({
    limits,
    instances,
    clock,
    onBatch: (info) => observed.push(info),
    runBatch: (items, info) =>
      new Promise((resolve, reject) => batches.push({ items: [...items], info, resolve, reject })),
  });
  const submit = (item: string, options?: EnqueueOptions): Outcome => {
    const outcome: Outcome = { status: 'pending' };
    void batcher.enqueue(item, options).then(
      (value) => Object.assign(outcome, { status: 'fulfilled', value }),
      (error: ModelgateError) => Object.assign(outcome, { status: 'rejected', error }),
    );
    return outcome;
  };
  const finish = async (index: number): Promise<void> => {
    const batch = batches[index];
    if (batch === undefined) throw new Error(`no batch ${index}`);
    batch.resolve(batch.items.map((item) => `out:${item}`));
    await flush();
  };
  return { clock, batcher, batches, observed, submit, finish };
}

const itemsOf = (batches: readonly RunningBatch[]): string[][] => batches.map((b) => b.items);

describe('DynamicBatcher', () => {
  it('dispatches a request immediately when idle, as a batch of one', async () => {
    const { batches, submit, finish } = setUp({ preferredBatchSizes: [4], maxQueueDelayMicros: 1000 });
    const a = submit('a');
    expect(itemsOf(batches)).toEqual([['a']]); // no clock advance: no added latency
    await finish(0);
    expect(a).toEqual({ status: 'fulfilled', value: 'out:a' });
  });

  it('sends the rows queued together by enqueueAll as one batch even when idle', async () => {
    const { batches, batcher, submit, finish } = setUp({ maxBatchSize: 4 });
    const rows = batcher.enqueueAll(['a', 'b', 'c'].map((item) => ({ item })));
    expect(itemsOf(batches)).toEqual([['a', 'b', 'c']]);
    await finish(0);
    await expect(Promise.all(rows)).resolves.toEqual(['out:a', 'out:b', 'out:c']);
    // enqueue() one by one on an idle batcher: the first row leaves alone.
    ['d', 'e', 'f'].map((item) => submit(item));
    expect(itemsOf(batches).slice(1)).toEqual([['d']]);
  });

  it('accumulates requests while the instance is busy, then takes all waiting up to maxBatchSize', async () => {
    const { batches, batcher, submit, finish } = setUp({ maxBatchSize: 3 });
    submit('a');
    const waiting = ['b', 'c', 'd', 'e'].map((item) => submit(item));
    expect(batcher.queueDepth).toBe(4);
    await finish(0);
    expect(itemsOf(batches)).toEqual([['a'], ['b', 'c', 'd']]);
    await finish(1);
    expect(itemsOf(batches)).toEqual([['a'], ['b', 'c', 'd'], ['e']]);
    await finish(2);
    expect(waiting.map((o) => o.value)).toEqual(['out:b', 'out:c', 'out:d', 'out:e']);
  });

  it('dispatches the largest preferred size as soon as what is waiting can form it', () => {
    const limits = { preferredBatchSizes: [2, 4], maxBatchSize: 8, maxQueueDelayMicros: 1000 };
    const { batches, batcher, submit } = setUp(limits, 2);
    submit('a'); // batcher idle: runs at once, alone
    ['b', 'c', 'd'].forEach((item) => submit(item));
    expect(itemsOf(batches)).toEqual([['a'], ['b', 'c']]); // 2 is preferred: no wait for 4
    expect(batcher.queueDepth).toBe(1);
  });

  it('takes the largest preferred size of what waited when the instance frees, leaving the rest', async () => {
    const { batches, batcher, submit, finish } = setUp({ preferredBatchSizes: [2, 4], maxBatchSize: 8 });
    submit('a');
    ['b', 'c', 'd', 'e', 'f'].forEach((item) => submit(item));
    await finish(0);
    expect(itemsOf(batches)).toEqual([['a'], ['b', 'c', 'd', 'e']]);
    expect(batches[1]?.info.reason).toBe('preferred-size');
    expect(batcher.queueDepth).toBe(1);
  });

  it('dispatches a partial batch once maxQueueDelayMicros has passed', () => {
    const limits = { preferredBatchSizes: [4], maxBatchSize: 8, maxQueueDelayMicros: 500 };
    const { clock, batches, submit, observed } = setUp(limits, 2);
    submit('a');
    clock.advance(100);
    submit('b'); // one instance busy, one free: b waits for company until 100 + 500
    clock.advance(200);
    submit('c');
    clock.advance(299);
    expect(itemsOf(batches)).toEqual([['a']]);
    clock.advance(1);
    expect(itemsOf(batches)).toEqual([['a'], ['b', 'c']]);
    expect(observed[1]).toMatchObject({ reason: 'max-delay-elapsed', queueMicros: [500, 300] });
  });

  it('rejects exactly the overflow with QUEUE_FULL when the queue is full', async () => {
    const { batches, batcher, submit, finish } = setUp({ maxQueueSize: 3 });
    submit('running');
    const outcomes = ['a', 'b', 'c', 'd', 'e'].map((item) => submit(item));
    await flush(); // no clock advance: the refusals are already settled
    expect(outcomes.map((o) => o.status)).toEqual(['pending', 'pending', 'pending', 'rejected', 'rejected']);
    expect(outcomes[3]?.error).toBeInstanceOf(ModelgateError);
    expect(outcomes[3]?.error).toMatchObject({
      code: ErrorCode.QUEUE_FULL,
      details: { retryAfterSeconds: 1 },
    });
    expect(batcher.queueDepth).toBe(3);
    await finish(0);
    expect(itemsOf(batches)[1]).toEqual(['a', 'b', 'c']);
  });

  it('rejects a queued request at its deadline while a batch runs, and never computes it', async () => {
    const { clock, batches, batcher, submit, finish } = setUp();
    submit('running', { timeoutMs: 60_000 });
    const late = submit('late', { timeoutMs: 5 });
    const onTime = submit('on-time', { timeoutMs: 60_000 });
    clock.advance(4_999);
    await flush();
    expect(late.status).toBe('pending');
    clock.advance(1); // 5 ms: the first batch is still running
    await flush();
    expect(late.error).toMatchObject({ code: ErrorCode.DEADLINE_EXCEEDED });
    expect(batcher.queueDepth).toBe(1);
    await finish(0);
    expect(itemsOf(batches)).toEqual([['running'], ['on-time']]);
    await finish(1);
    expect(onTime.value).toBe('out:on-time');
  });

  it('gives a request without a deadline defaultTimeoutMs', async () => {
    const { clock, submit } = setUp({ defaultTimeoutMs: 2 });
    submit('running');
    const queued = submit('queued');
    clock.advance(2_000);
    await flush();
    expect(queued.error).toMatchObject({ code: ErrorCode.DEADLINE_EXCEEDED });
  });

  it('rejects a request whose deadline has already passed without queueing it', async () => {
    const { clock, batcher, submit } = setUp();
    clock.advance(1_000);
    const expired = submit('x', { deadlineMicros: 1_000 });
    await flush();
    expect(expired.error).toMatchObject({ code: ErrorCode.DEADLINE_EXCEEDED });
    expect(batcher.queueDepth).toBe(0);
  });

  it('drops a queued request with CANCELLED when its AbortSignal fires, and never computes it', async () => {
    const { batches, batcher, submit, finish } = setUp();
    submit('running');
    const controller = new AbortController();
    const gone = submit('gone', { signal: controller.signal });
    submit('stays');
    controller.abort();
    await flush();
    expect(gone.error).toMatchObject({ code: ErrorCode.CANCELLED });
    expect(batcher.queueDepth).toBe(1);
    await finish(0);
    expect(itemsOf(batches)).toEqual([['running'], ['stays']]);
  });

  it('drops a queued request when its CancelSource aborts, as with an AbortSignal, and stops listening once dispatched', async () => {
    const { batches, batcher, submit, finish } = setUp();
    submit('running');
    const gone = new CancelSource();
    const cancelled = submit('gone', { signal: gone.signal });
    const kept = new CancelSource();
    const listening = vi.spyOn(kept, 'removeEventListener');
    submit('stays', { signal: kept.signal });
    gone.abort();
    await flush();
    expect(cancelled.error).toMatchObject({ code: ErrorCode.CANCELLED });
    expect(batcher.queueDepth).toBe(1);
    await finish(0);
    expect(itemsOf(batches)).toEqual([['running'], ['stays']]);
    // Dispatched: the batcher took its listener off, so a late abort reaches nothing of it.
    expect(listening).toHaveBeenCalledTimes(1);
    kept.abort();
  });

  it('refuses a request whose signal has already fired', async () => {
    const { batches, submit } = setUp();
    const outcome = submit('x', { signal: AbortSignal.abort() });
    await flush();
    expect(outcome.error).toMatchObject({ code: ErrorCode.CANCELLED });
    expect(batches).toHaveLength(0);
  });

  it('cannot recall a dispatched request: aborting it then still settles it with its batch', async () => {
    const { submit, finish } = setUp();
    const controller = new AbortController();
    const running = submit('running', { signal: controller.signal });
    controller.abort();
    await finish(0);
    expect(running).toEqual({ status: 'fulfilled', value: 'out:running' });
  });

  it('groups by length under maxBatchTokens and never pads short requests to a long one', async () => {
    const { batches, submit, finish } = setUp({ maxBatchSize: 8, maxBatchTokens: 64 });
    submit('running', { tokens: 4 });
    submit('short-1', { tokens: 8 });
    submit('long', { tokens: 60 });
    submit('short-2', { tokens: 8 });
    submit('short-3', { tokens: 8 });
    await finish(0);
    expect(itemsOf(batches)[1]).toEqual(['short-1', 'short-2', 'short-3']);
    expect(batches[1]?.info).toMatchObject({ size: 3, sequenceLength: 8, paddedTokens: 24, tokens: 24 });
    await finish(1);
    expect(itemsOf(batches)[2]).toEqual(['long']); // the oldest now, so next
  });

  it('under maxPaddingRatio, runs mixed lengths as batches of near lengths, the oldest first', async () => {
    const { batches, submit, finish } = setUp({ maxBatchSize: 32, maxPaddingRatio: 1.15 });
    submit('running', { tokens: 4 });
    for (const [id, tokens] of [
      ['mid-1', 100],
      ['short-1', 10],
      ['long-1', 250],
      ['mid-2', 104],
      ['short-2', 10],
      ['long-2', 240],
    ] as const)
      submit(id, { tokens });
    await finish(0);
    expect(itemsOf(batches)[1]).toEqual(['mid-1', 'mid-2']);
    await finish(1);
    expect(itemsOf(batches)[2]).toEqual(['short-1', 'short-2']);
    await finish(2);
    expect(itemsOf(batches)[3]).toEqual(['long-1', 'long-2']);
    const computed = batches.slice(1).reduce((sum, b) => sum + (b.info?.paddedTokens ?? 0), 0);
    const real = batches.slice(1).reduce((sum, b) => sum + (b.info?.tokens ?? 0), 0);
    expect(computed / real).toBeLessThanOrEqual(1.15);
  });

  it('runs up to `instances` batches concurrently, each finishing on its own', async () => {
    const { batches, batcher, submit, finish } = setUp({}, 2);
    const a = submit('a');
    const b = submit('b');
    const c = submit('c');
    expect(itemsOf(batches)).toEqual([['a'], ['b']]);
    expect(batcher.inFlightBatches).toBe(2);
    await finish(1);
    expect(b.value).toBe('out:b');
    expect(a.status).toBe('pending');
    expect(itemsOf(batches)).toEqual([['a'], ['b'], ['c']]);
    await finish(0);
    await finish(2);
    expect([a.value, c.value]).toEqual(['out:a', 'out:c']);
  });

  it('rejects every item of a batch with the ModelgateError runBatch rejected with, then carries on', async () => {
    const { batches, submit, finish } = setUp();
    submit('running');
    const x = submit('x');
    const y = submit('y');
    await finish(0);
    const error = new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'bad shape', { field: 'input_ids' });
    batches[1]?.reject(error);
    await flush();
    expect(x.error).toBe(error);
    expect(y.error).toBe(error);
    const z = submit('z');
    await finish(2);
    expect(z.value).toBe('out:z');
  });

  it('wraps any other runBatch failure, thrown or rejected, as INTERNAL', async () => {
    const boom = new Error('session crashed');
    for (const fail of [
      () => Promise.reject(boom),
      () => {
        throw boom;
      },
    ]) {
      const batcher = new DynamicBatcher<string, string>({ clock: new FakeClock(), runBatch: fail });
      const error = await batcher.enqueue('a').catch((e: unknown) => e);
      expect(error).toMatchObject({ code: ErrorCode.INTERNAL, cause: boom });
      expect(batcher.inFlightBatches).toBe(0);
    }
  });

  it('rejects the batch with INTERNAL when runBatch returns the wrong number of results', async () => {
    const batcher = new DynamicBatcher<string, string>({
      clock: new FakeClock(),
      runBatch: () => Promise.resolve(['one', 'too many']),
    });
    await expect(batcher.enqueue('a')).rejects.toMatchObject({ code: ErrorCode.INTERNAL });
  });

  it('drains: refuses new requests, runs what is queued without waiting, then resolves', async () => {
    const limits = { preferredBatchSizes: [4], maxQueueDelayMicros: 10_000 };
    const { batches, submit, batcher, finish } = setUp(limits, 2);
    submit('a');
    const b = submit('b'); // waits for company while a runs
    expect(itemsOf(batches)).toEqual([['a']]);
    let drained = false;
    void batcher.drain().then(() => (drained = true));
    expect(itemsOf(batches)).toEqual([['a'], ['b']]); // no company will come: no waiting
    const refused = submit('c');
    await finish(0);
    await flush();
    expect(refused.error).toMatchObject({ code: ErrorCode.UNAVAILABLE });
    expect(drained).toBe(false);
    await finish(1);
    expect(b.value).toBe('out:b');
    expect(drained).toBe(true);
  });

  it('close rejects everything queued with UNAVAILABLE and lets running batches finish', async () => {
    const { batches, batcher, submit, finish } = setUp();
    const running = submit('running');
    const queued = [submit('a'), submit('b')];
    batcher.close();
    await flush();
    expect(queued.map((o) => o.error?.code)).toEqual([ErrorCode.UNAVAILABLE, ErrorCode.UNAVAILABLE]);
    expect(batcher.queueDepth).toBe(0);
    await finish(0);
    expect(running.value).toBe('out:running');
    expect(batches).toHaveLength(1);
    await expect(batcher.drain()).resolves.toBeUndefined();
  });

  it('reports each batch to onBatch with its size, tokens and queue times', async () => {
    const { clock, observed, submit, finish } = setUp({ maxPaddingRatio: Number.POSITIVE_INFINITY });
    submit('running', { tokens: 5 });
    clock.advance(10);
    submit('a', { tokens: 3 });
    clock.advance(20);
    submit('b', { tokens: 7 });
    clock.advance(5);
    await finish(0);
    expect(
      observed.map(({ size, tokens, paddedTokens, queueMicros, queueDepth }) => ({
        size,
        tokens,
        paddedTokens,
        queueMicros,
        queueDepth,
      })),
    ).toEqual([
      { size: 1, tokens: 5, paddedTokens: 5, queueMicros: [0], queueDepth: 0 },
      { size: 2, tokens: 10, paddedTokens: 14, queueMicros: [25, 5], queueDepth: 0 },
    ]);
  });

  it('refuses requests with an invalid token count', async () => {
    const { submit } = setUp();
    const outcome = submit('x', { tokens: Number.NaN });
    await flush();
    expect(outcome.error).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
  });
});
