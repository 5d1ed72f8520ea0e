import { join } from 'node:path';
import { type ServiceError, status } from '@grpc/grpc-js';
import { ensureFixture } from '@modelgate/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fp32Output,
  maxAbsDiff,
  paddedTokenInferRequest,
  tokenInferRequest,
  tokenRows,
  unbatchedOutputs,
} from '@modelgate/testing';
import { type Message } from '@modelgate/testing';
import { type RunningWorker, batchesStarted, metricValue, startWorker, waitFor } from '@modelgate/testing';

const HOLD = 'x-modelgate-test-hold-ms';

describe('worker: Open Inference Protocol over onnxruntime with dynamic batching', () => {
  let worker: RunningWorker;
  let bertPath: string;
  let embedderPath: string;

  beforeAll(async () => {
    bertPath = join(await ensureFixture('tiny-bert-sst2'), 'onnx', 'model.onnx');
    embedderPath = join(await ensureFixture('tiny-bert-embedder'), 'onnx', 'model.onnx');
    worker = await startWorker([
      { name: 'bert', fixture: 'tiny-bert-sst2', batching: { maxBatchSize: 32, maxQueueDelayMicros: 2000 } },
      { name: 'distil', fixture: 'tiny-distilbert-sst2' },
      { name: 'embedder', fixture: 'tiny-bert-embedder', task: 'feature-extraction' },
      { name: 'small-queue', fixture: 'tiny-bert-sst2', batching: { maxBatchSize: 1, maxQueueSize: 8 } },
      { name: 'brief', fixture: 'tiny-bert-sst2', batching: { defaultTimeoutMs: 500 } },
      { name: 'gpu-preferred', fixture: 'tiny-bert-sst2', executionProviders: ['cuda', 'cpu'] },
      { name: 'gpu-only', fixture: 'tiny-bert-sst2', executionProviders: ['cuda'] },
      { name: 'tampered', fixture: 'tiny-bert-sst2', sha256: 'ab'.repeat(32) },
    ]);
  });

  afterAll(async () => {
    await worker?.stop();
  });

  /**
   * Sends `request` to small-queue, its batch held `holdMs`; resolves once that batch has started,
   * with the call's answer still to come.
   */
  const holdSmallQueue = async (request: Message, holdMs: number) => {
    const before = await batchesStarted(worker, 'small-queue');
    const answer = worker.client.call('ModelInfer', request, { metadata: { [HOLD]: String(holdMs) } });
    await waitFor(async () => (await batchesStarted(worker, 'small-queue')) > before);
    return { answer };
  };
  /** Requests waiting in small-queue's batcher now. */
  const smallQueueDepth = async () =>
    metricValue(await worker.metrics(), 'modelgate_queue_depth', { model: 'small-queue', version: '1' });

  it('answers the server and model metadata calls like a Triton server', async () => {
    expect(await worker.client.call('ServerLive', {})).toEqual({ live: true });
    expect(await worker.client.call('ServerReady', {})).toEqual({ ready: true });
    expect(await worker.client.call('ModelReady', { name: 'bert', version: '1' })).toEqual({ ready: true });
    const metadata = await worker.client.call<Message>('ModelMetadata', { name: 'bert' });
    expect(metadata).toMatchObject({ name: 'bert', versions: ['1'], platform: 'onnxruntime_onnx' });
    expect(metadata.inputs).toEqual([
      { name: 'input_ids', datatype: 'INT64', shape: [-1, -1] },
      { name: 'attention_mask', datatype: 'INT64', shape: [-1, -1] },
      { name: 'token_type_ids', datatype: 'INT64', shape: [-1, -1] },
    ]);
    expect(metadata.outputs).toEqual([{ name: 'logits', datatype: 'FP32', shape: [-1, 2] }]);
    expect(await worker.client.check()).toEqual({ status: 'SERVING' });
    expect(await worker.client.check('bert')).toEqual({ status: 'SERVING' });
  });

  it('gives 64 concurrent requests of mixed lengths exactly their unbatched results, in batches', async () => {
    const rows = tokenRows(64, 7);
    const expected = await unbatchedOutputs(bertPath, rows, 'logits');
    const before = await worker.metrics();
    // Occupy the single instance so the 64 queue up and leave in batches.
    const held = worker.client.call('ModelInfer', tokenInferRequest('bert', [rows[0]!]), {
      metadata: { [HOLD]: '300' },
    });
    const responses = await Promise.all(
      rows.map((row, i) =>
        worker.client.call<Message>('ModelInfer', tokenInferRequest('bert', [row], { id: `r${i}` })),
      ),
    );
    await held;
    responses.forEach((response, i) => {
      expect(response.id).toBe(`r${i}`);
      const logits = fp32Output(response, 'logits');
      expect(logits.shape).toEqual([1, 2]);
      expect(maxAbsDiff(logits.data, expected[i]!)).toBeLessThan(1e-5);
    });
    const after = await worker.metrics();
    const batches =
      metricValue(after, 'modelgate_batch_size_count', { model: 'bert', version: '1' }) -
      metricValue(before, 'modelgate_batch_size_count', { model: 'bert', version: '1' });
    const rowsRun =
      metricValue(after, 'modelgate_batch_size_sum', { model: 'bert', version: '1' }) -
      metricValue(before, 'modelgate_batch_size_sum', { model: 'bert', version: '1' });
    expect(rowsRun).toBe(65);
    expect(batches).toBeLessThan(65); // so at least one batch had more than one row
  });

  it('computes padded rows at their real lengths and pads sequence outputs back to the sent width', async () => {
    const rows = [...tokenRows(1, 21, 5, 5), ...tokenRows(1, 22, 17, 17), ...tokenRows(1, 23, 9, 9)];
    const hiddenTruth = await unbatchedOutputs(embedderPath, rows, 'last_hidden_state');
    const logitsTruth = await unbatchedOutputs(bertPath, rows, 'logits');
    const before = await worker.metrics();
    const [embedded, classified] = await Promise.all([
      worker.client.call<Message>('ModelInfer', paddedTokenInferRequest('embedder', rows)),
      worker.client.call<Message>('ModelInfer', paddedTokenInferRequest('bert', rows)),
    ]);
    const hidden = fp32Output(embedded, 'last_hidden_state');
    expect(hidden.shape).toEqual([3, 17, 128]);
    rows.forEach((row, i) => {
      const own = hidden.data.subarray(i * 17 * 128, (i * 17 + row.length) * 128);
      expect(maxAbsDiff(own, hiddenTruth[i]!)).toBeLessThan(1e-5);
      const padding = hidden.data.subarray((i * 17 + row.length) * 128, (i + 1) * 17 * 128);
      expect(padding.every((value) => value === 0)).toBe(true);
    });
    const logits = fp32Output(classified, 'logits');
    rows.forEach((_, i) => {
      expect(maxAbsDiff(logits.data.subarray(i * 2, i * 2 + 2), logitsTruth[i]!)).toBeLessThan(1e-5);
    });
    const after = await worker.metrics();
    const delta = (kind: string) =>
      metricValue(after, 'modelgate_batch_tokens_total', { model: 'bert', version: '1', kind }) -
      metricValue(before, 'modelgate_batch_tokens_total', { model: 'bert', version: '1', kind });
    expect(delta('real')).toBe(5 + 17 + 9); // the padding the client sent is not counted...
    expect(delta('computed')).toBeLessThan(3 * 17); // ...nor computed
    expect(delta('computed') / delta('real')).toBeLessThanOrEqual(1.15);
  });

  it('runs a multi-row request on an idle worker as one batch, split back in order; the embedder per token', async () => {
    const rows = tokenRows(3, 11, 12, 12);
    const expected = await unbatchedOutputs(embedderPath, rows, 'last_hidden_state');
    const series = { model: 'embedder', version: '1' };
    const before = metricValue(await worker.metrics(), 'modelgate_batch_size_count', series);
    const response = await worker.client.call<Message>('ModelInfer', tokenInferRequest('embedder', rows));
    expect(metricValue(await worker.metrics(), 'modelgate_batch_size_count', series) - before).toBe(1);
    const hidden = fp32Output(response, 'last_hidden_state');
    expect(hidden.shape).toEqual([3, 12, 128]);
    const perRow = 12 * 128;
    rows.forEach((_, i) => {
      expect(maxAbsDiff(hidden.data.subarray(i * perRow, (i + 1) * perRow), expected[i]!)).toBeLessThan(1e-5);
    });
  });

  it('serves a DistilBERT-style model that takes no token_type_ids', async () => {
    const response = await worker.client.call<Message>(
      'ModelInfer',
      tokenInferRequest('distil', tokenRows(2, 3, 9, 9), { withTokenTypes: false }),
    );
    expect(fp32Output(response, 'logits').shape).toEqual([2, 2]);
  });

  it('accepts typed contents as well as raw bytes, and returns only the requested outputs', async () => {
    const row = tokenRows(1, 5, 10, 10)[0]!;
    const [expected] = await unbatchedOutputs(bertPath, [row], 'logits');
    const shape = [1, row.length];
    const response = await worker.client.call<Message>('ModelInfer', {
      model_name: 'bert',
      model_version: '1',
      id: 'typed',
      inputs: [
        { name: 'input_ids', datatype: 'INT64', shape, contents: { int64_contents: row } },
        { name: 'attention_mask', datatype: 'INT64', shape, contents: { int64_contents: row.map(() => 1) } },
        { name: 'token_type_ids', datatype: 'INT64', shape, contents: { int64_contents: row.map(() => 0) } },
      ],
      outputs: [{ name: 'logits' }],
    });
    expect(response).toMatchObject({ model_name: 'bert', model_version: '1', id: 'typed' });
    expect(maxAbsDiff(fp32Output(response, 'logits').data, expected!)).toBeLessThan(1e-5);
  });

  it.each([
    ['an unknown input', { rename: 'input_idz' }, "unknown input 'input_idz'"],
    [
      'a wrong datatype',
      { datatype: 'FP32' },
      "input 'input_ids' has datatype FP32; the model expects INT64",
    ],
    ['a wrong rank', { shape: [1, 2, 5] }, "input 'input_ids' has shape [1, 2, 5]"],
    ['a byte length that does not match the shape', { truncate: true }, 'input_ids'],
  ])('rejects %s with INVALID_ARGUMENT naming the tensor', async (_case, change, message) => {
    const request = tokenInferRequest('bert', tokenRows(1, 9, 5, 5));
    const inputs = request.inputs as Message[];
    const raw = request.raw_input_contents as Buffer[];
    const first = inputs[0]!;
    if ('rename' in change) first.name = change.rename;
    if ('datatype' in change) first.datatype = change.datatype;
    if ('shape' in change) first.shape = change.shape;
    if ('truncate' in change) raw[0] = raw[0]!.subarray(0, 8);
    const error = await worker.client.call('ModelInfer', request).catch((e: ServiceError) => e);
    expect(error).toMatchObject({ code: status.INVALID_ARGUMENT });
    expect((error as ServiceError).details).toContain(message);
  });

  it('rejects exactly the overflow of a full queue with RESOURCE_EXHAUSTED, before the held batch ends', async () => {
    const request = tokenInferRequest('small-queue', tokenRows(1, 21, 6, 6));
    const settled: string[] = [];
    const held = (await holdSmallQueue(request, 2000)).answer.then(() => settled.push('held'));
    const calls = Array.from({ length: 12 }, () =>
      worker.client.call('ModelInfer', request).catch((error: ServiceError) => {
        settled.push(`rejected:${error.code}`);
        throw error;
      }),
    );
    const outcomes = Promise.allSettled(calls);
    await waitFor(() => settled.filter((s) => s.startsWith('rejected:')).length === 4, { intervalMs: 20 });
    // The admitted 8 wait behind the held batch: the scraped queue depth says so, not only after a batch.
    expect(settled).not.toContain('held');
    expect(await smallQueueDepth()).toBe(8);
    const results = await outcomes;
    await held;
    expect(await smallQueueDepth()).toBe(0);
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected).toHaveLength(4);
    rejected.forEach((r) => expect(r.reason).toMatchObject({ code: status.RESOURCE_EXHAUSTED }));
    // Every rejection came back while the held batch was still running.
    expect(settled.indexOf('held')).toBeGreaterThan(
      settled.lastIndexOf(`rejected:${status.RESOURCE_EXHAUSTED}`),
    );
  });

  it("answers DEADLINE_EXCEEDED once a running request's limit passes: the model's default, or its timeout parameter", async () => {
    // Both held in their batches well past their limits; neither has a gRPC deadline (the client
    // ends those itself). Each used to wait for its batch and answer OK.
    const hold = { metadata: { [HOLD]: '2500' } };
    const timeout = { timeout: { int64_param: '300000', parameter_choice: 'int64_param' } };
    const [byDefault, byParameter] = await Promise.all([
      worker.client
        .call('ModelInfer', tokenInferRequest('brief', tokenRows(1, 31)), hold)
        .catch((e: ServiceError) => e),
      worker.client
        .call('ModelInfer', { ...tokenInferRequest('bert', tokenRows(1, 32)), parameters: timeout }, hold)
        .catch((e: ServiceError) => e),
    ]);
    for (const error of [byDefault, byParameter]) {
      expect(error).toMatchObject({ code: status.DEADLINE_EXCEEDED });
      expect((error as ServiceError).details).toMatch(/deadline exceeded while (brief|bert):1 computed/);
    }
  });

  it('fails a request whose deadline passes in the queue with DEADLINE_EXCEEDED, without computing it', async () => {
    const request = tokenInferRequest('small-queue', tokenRows(1, 23, 6, 6));
    const before = await worker.metrics();
    const order: string[] = [];
    const held = (await holdSmallQueue(request, 2000)).answer.then(() => order.push('held'));
    // The gRPC deadline, and Triton's `timeout` request parameter (µs) without one, limit it alike.
    const timeout = { timeout: { int64_param: '50000', parameter_choice: 'int64_param' } };
    const [error, byParameter] = await Promise.all([
      worker.client.call('ModelInfer', request, { deadlineMs: 50 }).catch((e: ServiceError) => e),
      worker.client.call('ModelInfer', { ...request, parameters: timeout }).catch((e: ServiceError) => e),
    ]);
    order.push('deadline');
    expect(error).toMatchObject({ code: status.DEADLINE_EXCEEDED });
    expect(byParameter).toMatchObject({ code: status.DEADLINE_EXCEEDED });
    const priority = { priority: { int64_param: '1', parameter_choice: 'int64_param' } };
    const refused = await worker.client
      .call('ModelInfer', { ...request, parameters: priority })
      .catch((e: ServiceError) => e);
    expect(refused).toMatchObject({ code: status.INVALID_ARGUMENT });
    expect((refused as ServiceError).details).toContain("request parameter 'priority' is not taken");
    await held;
    // Answered at their deadline, while the batch they queued behind was still held.
    expect(order).toEqual(['deadline', 'held']);
    // The queue is first in, first out: once a request sent after the held one is answered, the
    // expired ones had their turn.
    await worker.client.call('ModelInfer', request);
    const after = await worker.metrics();
    const rowsRun =
      metricValue(after, 'modelgate_batch_size_sum', { model: 'small-queue', version: '1' }) -
      metricValue(before, 'modelgate_batch_size_sum', { model: 'small-queue', version: '1' });
    expect(rowsRun).toBe(2); // the held request and the one sent after it; not the expired ones
    expect(
      metricValue(after, 'modelgate_inference_requests_total', {
        model: 'small-queue',
        version: '1',
        status: 'deadline_exceeded',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      metricValue(after, 'modelgate_inference_failures_total', {
        model: 'small-queue',
        version: '1',
        reason: 'TIMEOUT',
      }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('drops a queued request whose client cancels it, without computing it', async () => {
    const request = tokenInferRequest('small-queue', tokenRows(1, 29, 6, 6));
    const labels = { model: 'small-queue', version: '1' };
    const before = await worker.metrics();
    const held = (await holdSmallQueue(request, 1500)).answer;
    const giveUp = new AbortController();
    const cancelled = worker.client
      .call('ModelInfer', request, { signal: giveUp.signal })
      .catch((e: ServiceError) => e);
    await waitFor(async () => (await smallQueueDepth()) === 1); // it waits behind the held batch
    giveUp.abort();
    expect(await cancelled).toMatchObject({ code: status.CANCELLED });
    // The worker hears the cancel while the request waits behind the held batch, and drops it.
    await waitFor(
      async () =>
        metricValue(await worker.metrics(), 'modelgate_inference_requests_total', {
          ...labels,
          status: 'cancelled',
        }) > metricValue(before, 'modelgate_inference_requests_total', { ...labels, status: 'cancelled' }),
      { timeoutMs: 5000, describe: () => 'the worker never counted the cancelled request' },
    );
    await held;
    // First in, first out: once a request sent after it is answered, the cancelled one had its turn.
    await worker.client.call('ModelInfer', request);
    const rowsRun =
      metricValue(await worker.metrics(), 'modelgate_batch_size_sum', labels) -
      metricValue(before, 'modelgate_batch_size_sum', labels);
    expect(rowsRun).toBe(2); // the held request and the one sent after it; not the cancelled one
  });

  it("serves a ['cuda', 'cpu'] model on CPU with a warning, and fails a ['cuda'] one with a clear reason", async () => {
    expect(await worker.client.call('ModelReady', { name: 'gpu-preferred' })).toEqual({ ready: true });
    expect(worker.process.output()).toMatch(/execution provider cuda unavailable; falling back/);
    expect(await worker.client.call('ModelReady', { name: 'gpu-only' })).toEqual({ ready: false });
    const error = await worker.client
      .call('ModelInfer', tokenInferRequest('gpu-only', tokenRows(1, 1, 5, 5)))
      .catch((e: ServiceError) => e);
    expect(error).toMatchObject({ code: status.UNAVAILABLE });
    expect((error as ServiceError).details).toContain("the list has no 'cpu', so CPU fallback is off");
    // The fall back shows in the metrics too: the provider it runs on, and each load's outcome.
    const metrics = await worker.metrics();
    const labels = { model: 'gpu-preferred', version: '1' };
    expect(metricValue(metrics, 'modelgate_model_execution_provider', { ...labels, provider: 'cpu' })).toBe(
      1,
    );
    expect(metricValue(metrics, 'modelgate_model_execution_provider', { ...labels, provider: 'cuda' })).toBe(
      0,
    );
    expect(
      metricValue(metrics, 'modelgate_model_load_duration_seconds_count', { ...labels, outcome: 'loaded' }),
    ).toBe(1);
    expect(
      metricValue(metrics, 'modelgate_model_load_duration_seconds_count', {
        model: 'gpu-only',
        version: '1',
        outcome: 'failed',
      }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('never serves a model whose artifact does not match its sha256', async () => {
    expect(await worker.client.call('ModelReady', { name: 'tampered' })).toEqual({ ready: false });
    const error = await worker.client
      .call('ModelInfer', tokenInferRequest('tampered', tokenRows(1, 1, 5, 5)))
      .catch((e: ServiceError) => e);
    expect(error).toMatchObject({ code: status.UNAVAILABLE });
    expect((error as ServiceError).details).toContain('sha256 mismatch');
  });

  it('answers NOT_FOUND for a model it does not serve, counted under one label whatever the name', async () => {
    const names = ['nope', 'zz-1', 'random-abc'];
    for (const name of names) {
      const error = await worker.client
        .call('ModelInfer', tokenInferRequest(name, tokenRows(1, 1, 5, 5)))
        .catch((e: ServiceError) => e);
      expect(error).toMatchObject({ code: status.NOT_FOUND });
    }
    const text = await worker.metrics();
    const notFound = metricValue(text, 'modelgate_inference_requests_total', {
      model: 'unknown',
      version: 'none',
      status: 'not_found',
    });
    expect(notFound).toBeGreaterThanOrEqual(names.length);
    expect(
      metricValue(text, 'modelgate_inference_failures_total', {
        model: 'unknown',
        version: 'none',
        reason: 'NOT_FOUND',
      }),
    ).toBeGreaterThanOrEqual(names.length);
    for (const name of names) expect(text).not.toContain(`model="${name}`);
  });
});

describe('worker readiness (Triton strict mode)', () => {
  it('is not ready when every model it was given failed to load, and says why per model', async () => {
    const worker = await startWorker(
      [
        { name: 'tampered', fixture: 'tiny-bert-sst2', sha256: 'cd'.repeat(32) },
        { name: 'gpu-only', fixture: 'tiny-bert-sst2', executionProviders: ['cuda'] },
      ],
      // Two quick attempts each, so the load is given up on (and the revision applied) at once.
      { WORKER_LOAD_RETRY_ATTEMPTS: '2', WORKER_LOAD_RETRY_BASE_MS: '20' },
      'settled',
    );
    try {
      expect(await worker.client.call('ServerLive', {})).toEqual({ live: true });
      expect(await worker.client.call('ServerReady', {})).toEqual({ ready: false });
      expect(await worker.client.call('ModelReady', { name: 'tampered' })).toEqual({ ready: false });
      const probe = await fetch(`${worker.httpUrl}/health/ready`);
      expect(probe.status).toBe(503);
      const body = (await probe.json()) as { models: object; reasons: Record<string, string> };
      expect(body.models).toEqual({ 'tampered:1': 'FAILED', 'gpu-only:1': 'FAILED' });
      expect(body.reasons['tampered:1']).toMatch(/sha256.*\(gave up after 2 attempts\)$/);
      expect(body.reasons['gpu-only:1']).toMatch(/cuda.*\(gave up after 2 attempts\)$/i);
    } finally {
      await worker.stop();
    }
  });

  it('fails the calls of a session whose thread died, then takes the model out of service at once', async () => {
    const worker = await startWorker([{ name: 'fragile', fixture: 'tiny-bert-sst2' }]);
    try {
      const request = tokenInferRequest('fragile', tokenRows(1, 3, 6, 6));
      const crashed = await worker.client
        .call('ModelInfer', request, { metadata: { 'x-modelgate-test-crash-session': '1' } })
        .catch((e: ServiceError) => e);
      expect(crashed).toMatchObject({ code: status.INTERNAL });
      const after = await worker.client.call('ModelInfer', request).catch((e: ServiceError) => e);
      expect(after).toMatchObject({ code: status.UNAVAILABLE });
      expect((after as ServiceError).details).toContain('onnxruntime session lost');
      expect(await worker.client.call('ModelReady', { name: 'fragile' })).toEqual({ ready: false });
      expect(await worker.client.call('ServerReady', {})).toEqual({ ready: false });
      expect(
        metricValue(await worker.metrics(), 'modelgate_model_ready', { model: 'fragile', version: '1' }),
      ).toBe(0);
    } finally {
      await worker.stop();
    }
  });
});
