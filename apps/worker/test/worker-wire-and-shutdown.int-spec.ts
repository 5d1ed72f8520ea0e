import { join } from 'node:path';
import { type ServiceError, status } from '@grpc/grpc-js';
import { ensureFixture } from '@modelgate/fixtures';
import { KserveWireClient } from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxAbsDiff, tokenInferRequest, tokenRows, unbatchedOutputs } from '@modelgate/testing';
import { type RunningWorker, metricValue, startWorker, waitFor } from '@modelgate/testing';

describe('worker: a client built only from the public protocol', () => {
  let worker: RunningWorker;
  let client: KserveWireClient;

  beforeAll(async () => {
    // Bound to '::': IPv4 (the harness dials 127.0.0.1) and IPv6 alike.
    worker = await startWorker([{ name: 'bert', fixture: 'tiny-bert-sst2' }], { WORKER_HOST: '::' });
    client = new KserveWireClient(worker.grpcAddress);
  });

  afterAll(async () => {
    client?.close();
    await worker?.stop();
  });

  it('answers over IPv6 too when WORKER_HOST is ::', async () => {
    const port = worker.grpcAddress.split(':').at(-1)!;
    const overIpv6 = new KserveWireClient(`[::1]:${port}`);
    try {
      expect((await overIpv6.modelMetadata('bert')).name).toBe('bert');
    } finally {
      overIpv6.close();
    }
  });

  it('reads ModelMetadata by the specification field numbers', async () => {
    const metadata = await client.modelMetadata('bert');
    expect(metadata).toEqual({
      name: 'bert',
      versions: ['1'],
      platform: 'onnxruntime_onnx',
      inputs: [
        { name: 'input_ids', datatype: 'INT64', shape: [-1, -1] },
        { name: 'attention_mask', datatype: 'INT64', shape: [-1, -1] },
        { name: 'token_type_ids', datatype: 'INT64', shape: [-1, -1] },
      ],
      outputs: [{ name: 'logits', datatype: 'FP32', shape: [-1, 2] }],
    });
  });

  it('runs ModelInfer with raw_input_contents and reads raw_output_contents', async () => {
    const row = tokenRows(1, 99, 7, 7)[0]!;
    const [expected] = await unbatchedOutputs(
      join(await ensureFixture('tiny-bert-sst2'), 'onnx', 'model.onnx'),
      [row],
      'logits',
    );
    const shape = [1, row.length];
    const int64 = (data: BigInt64Array) => new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const response = await client.modelInfer({
      model: 'bert',
      id: 'wire-1',
      inputs: [
        { name: 'input_ids', datatype: 'INT64', shape, raw: int64(BigInt64Array.from(row.map(BigInt))) },
        {
          name: 'attention_mask',
          datatype: 'INT64',
          shape,
          raw: int64(new BigInt64Array(row.length).fill(1n)),
        },
        { name: 'token_type_ids', datatype: 'INT64', shape, raw: int64(new BigInt64Array(row.length)) },
      ],
    });
    expect(response).toMatchObject({ modelName: 'bert', id: 'wire-1' });
    expect(response.outputs).toEqual([{ name: 'logits', datatype: 'FP32', shape: [1, 2] }]);
    const bytes = response.raw[0]!;
    const logits = new Float32Array(Uint8Array.from(bytes).buffer);
    expect(maxAbsDiff(logits, expected!)).toBeLessThan(1e-5);
  });
});

describe('worker: graceful shutdown', () => {
  it('on SIGTERM stops being ready at once, finishes every accepted request, refuses new ones, and exits 0', async () => {
    const worker = await startWorker([
      { name: 'bert', fixture: 'tiny-bert-sst2', batching: { maxBatchSize: 4, maxQueueSize: 64 } },
    ]);
    const request = tokenInferRequest('bert', tokenRows(1, 5, 8, 8));
    const settled: string[] = [];
    // One held batch keeps the instance busy; eight more requests queue behind it.
    const accepted = [
      worker.client.call('ModelInfer', request, { metadata: { 'x-modelgate-test-hold-ms': '1500' } }),
      ...Array.from({ length: 8 }, () => worker.client.call('ModelInfer', request)),
    ].map((call) => call.then(() => settled.push('accepted-ok')));
    // All nine accepted: the held batch runs and the eight wait in the queue.
    await waitFor(
      async () =>
        metricValue(await worker.metrics(), 'modelgate_queue_depth', { model: 'bert', version: '1' }) === 8,
    );

    // Background load that keeps calling across the shutdown: each call either succeeds or is refused.
    let loading = true;
    const loadErrors: status[] = [];
    const loaders = Array.from({ length: 8 }, async () => {
      while (loading) {
        await worker.client
          .call('ModelInfer', request)
          .catch((error: ServiceError) => loadErrors.push(error.code));
      }
    });

    worker.process.child.kill('SIGTERM');
    await waitFor(async () => !(await worker.client.call<{ ready: boolean }>('ServerReady', {})).ready, {
      intervalMs: 20,
    });
    expect(settled).toHaveLength(0); // readiness dropped while the held batch was still running
    const refused = await worker.client.call('ModelInfer', request).catch((e: ServiceError) => e);
    expect(refused).toMatchObject({ code: status.UNAVAILABLE });

    await Promise.all(accepted);
    expect(settled).toHaveLength(9);
    loading = false;
    await Promise.all(loaders);
    expect(loadErrors.filter((code) => code !== status.UNAVAILABLE)).toEqual([]);
    expect(await worker.process.exited).toBe(0);
    worker.client.close();
  });
});
