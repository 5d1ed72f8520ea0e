import { freePort } from '@modelgate/testing';
import { type InferRequest, InferenceClient } from '@modelgate/inference-client';
import { isModelgateError } from '@modelgate/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fp32Output, maxAbsDiff, tokenInferRequest, tokenRows } from '@modelgate/testing';
import { type Message } from '@modelgate/testing';
import { type RunningWorker, batchesStarted, metricValue, startWorker, waitFor } from '@modelgate/testing';
import { fp32Data, tokenInputs } from './support/token-inputs.js';

const HOLD = 'x-modelgate-test-hold-ms';

const MODELS = [
  { name: 'bert', fixture: 'tiny-bert-sst2', batching: { maxBatchSize: 8 } },
  { name: 'small-queue', fixture: 'tiny-bert-sst2', batching: { maxBatchSize: 1, maxQueueSize: 2 } },
];

describe('InferenceClient against real workers', () => {
  let a: RunningWorker;
  let b: RunningWorker;
  let client: InferenceClient;

  /** A call to `model` of the `tiny` group for one token row, due in `timeoutMs`. */
  const call = (model: string, row: number[], extra: Partial<InferRequest> = {}) =>
    client.infer({
      modelName: model,
      modelVersion: '1',
      inputs: tokenInputs([row]),
      deadlineEpochMs: Date.now() + 10_000,
      workerGroup: 'tiny',
      ...extra,
    });

  const callsSoFar = () => client.workerStatus().reduce((sum, w) => sum + w.calls, 0);

  /** Sends two held calls to small-queue; resolves once each worker is running one of them. */
  const holdBothWorkers = async (row: number[]) => {
    const before = await Promise.all([a, b].map((w) => batchesStarted(w, 'small-queue')));
    const held = [
      call('small-queue', row, { metadata: { [HOLD]: '1500' } }),
      call('small-queue', row, { metadata: { [HOLD]: '1500' } }),
    ];
    await waitFor(async () => {
      const now = await Promise.all([a, b].map((w) => batchesStarted(w, 'small-queue')));
      return now.every((count, i) => count > before[i]!);
    });
    return held;
  };

  beforeAll(async () => {
    [a, b] = await Promise.all([startWorker(MODELS), startWorker(MODELS)]);
    client = new InferenceClient({
      workerGroups: [{ name: 'tiny', addresses: [a.grpcAddress, b.grpcAddress] }],
    });
  });

  afterAll(async () => {
    await client?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('returns the logits a direct ModelInfer call to the same worker returns', async () => {
    for (const [i, row] of tokenRows(6, 17).entries()) {
      const result = await call('bert', row, { id: `r${i}` });
      const worker = result.worker === a.grpcAddress ? a : b;
      const direct = await worker.client.call<Message>('ModelInfer', tokenInferRequest('bert', [row]));
      expect(result).toMatchObject({ modelName: 'bert', modelVersion: '1', id: `r${i}`, attempts: 1 });
      expect(result.outputs.logits?.dims).toEqual([1, 2]);
      expect(result.queueMs).toBeGreaterThanOrEqual(0);
      expect(result.computeMs).toBeGreaterThan(0);
      expect(maxAbsDiff(fp32Data(result.outputs, 'logits'), fp32Output(direct, 'logits').data)).toBeLessThan(
        1e-5,
      );
    }
  });

  it('spreads concurrent load over both workers', async () => {
    const okOf = async (worker: RunningWorker) =>
      metricValue(await worker.metrics(), 'modelgate_inference_requests_total', {
        model: 'bert',
        version: '1',
        status: 'ok',
      });
    const before = [await okOf(a), await okOf(b)];
    const results = await Promise.all(tokenRows(64, 23).map((row) => call('bert', row)));
    const byWorker = [a, b].map((w) => results.filter((r) => r.worker === w.grpcAddress).length);
    expect(byWorker[0]! + byWorker[1]!).toBe(64);
    expect(Math.min(...byWorker)).toBeGreaterThanOrEqual(24);
    // The workers counted the same split.
    expect([(await okOf(a)) - before[0]!, (await okOf(b)) - before[1]!]).toEqual(byWorker);
  });

  it('surfaces a full worker queue as QUEUE_FULL with a Retry-After, without retrying', async () => {
    const row = tokenRows(1, 29, 6, 6)[0]!;
    const held = await holdBothWorkers(row);
    const callsBefore = callsSoFar();
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => call('small-queue', row)));
    await Promise.all(held);
    const rejected = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    expect(rejected).toHaveLength(6); // each worker queues 2 behind its held batch
    for (const error of rejected) {
      expect(isModelgateError(error) && error.code).toBe('QUEUE_FULL');
      expect(isModelgateError(error) && error.details.retryAfterSeconds).toBe(1);
    }
    expect(callsSoFar() - callsBefore).toBe(10); // one attempt each
  });

  it('surfaces DEADLINE_EXCEEDED for a deadline shorter than a held batch, without retrying', async () => {
    const row = tokenRows(1, 31, 6, 6)[0]!;
    const settled: string[] = [];
    const held = (await holdBothWorkers(row)).map((c) => c.then(() => settled.push('held')));
    const callsBefore = callsSoFar();
    const error = await call('small-queue', row, { deadlineEpochMs: Date.now() + 150 }).catch(
      (e: unknown) => e,
    );
    settled.push('deadline');
    await Promise.all(held);
    expect(isModelgateError(error) && error.code).toBe('DEADLINE_EXCEEDED');
    // Answered at its deadline while both held batches still ran, not after the one it queued behind.
    expect(settled).toEqual(['deadline', 'held', 'held']);
    expect(callsSoFar() - callsBefore).toBe(1);
  });

  it('fails fast with UNAVAILABLE for an address with nothing listening, and fails over when it can', async () => {
    const dead = `127.0.0.1:${await freePort()}`;
    const own = new InferenceClient();
    const fresh = new InferenceClient();
    try {
      const request = {
        modelName: 'bert',
        modelVersion: '1',
        inputs: tokenInputs(tokenRows(1, 37)),
        deadlineEpochMs: Date.now() + 10_000,
      };
      const error = await own.infer({ ...request, addresses: [dead] }).catch((e: unknown) => e);
      // Refused at once: waiting for a connection would have ended at the 10 s deadline as
      // DEADLINE_EXCEEDED. One attempt, and the address counted as failing.
      expect(isModelgateError(error) && error.code).toBe('UNAVAILABLE');
      expect(own.workerStatus().find((w) => w.address === dead)).toMatchObject({
        calls: 1,
        consecutiveFailures: 1,
      });

      // A fresh client's first pick is the dead address; it fails over, then passes it over.
      const results = [];
      for (let i = 0; i < 10; i++)
        results.push(await fresh.infer({ ...request, addresses: [dead, a.grpcAddress] }));
      expect(results.every((r) => r.worker === a.grpcAddress)).toBe(true);
      expect(results.map((r) => r.attempts)).toEqual([2, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
      expect(fresh.workerStatus().find((w) => w.address === dead)).toMatchObject({
        consecutiveFailures: 1,
        calls: 1,
      });
    } finally {
      await Promise.all([own.close(), fresh.close()]);
    }
  });
});
