// An image classifier on the worker: FP32 pixel_values rows [n, 3, 224, 224] go through the same
// dynamic batcher as token rows, stacked (no padding: every row has the same fixed shape). Each
// row's logits must equal a solo onnxruntime run, batches must merge concurrent calls, and
// preferred batch sizes must be honoured.
import { join } from 'node:path';
import { ensureFixture } from '@modelgate/fixtures';
import {
  type Message,
  type RunningWorker,
  fp32Output,
  maxAbsDiff,
  metricValue,
  pixelInferRequest,
  pixelRows,
  startWorker,
  unbatchedPixelOutputs,
  waitFor,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HOLD = 'x-modelgate-test-hold-ms';
const ROW_DIMS = [3, 224, 224] as const;
const LABELS = 5;

describe('worker: image-classification rows batch together', () => {
  let worker: RunningWorker;
  let modelPath: string;

  const batchSeries = async (model: string) => {
    const text = await worker.metrics();
    const series = { model, version: '1' };
    const bucket = (le: string) => metricValue(text, 'modelgate_batch_size_bucket', { ...series, le });
    return {
      count: metricValue(text, 'modelgate_batch_size_count', series),
      sum: metricValue(text, 'modelgate_batch_size_sum', series),
      le1: bucket('1'),
      le2: bucket('2'),
      le4: bucket('4'),
    };
  };

  beforeAll(async () => {
    modelPath = join(await ensureFixture('tiny-vit'), 'onnx', 'model.onnx');
    worker = await startWorker([
      {
        name: 'vit',
        fixture: 'tiny-vit',
        task: 'image-classification',
        batching: { maxBatchSize: 16, maxQueueDelayMicros: 2000 },
      },
      {
        name: 'vit-preferred',
        fixture: 'tiny-vit',
        task: 'image-classification',
        batching: { maxBatchSize: 8, preferredBatchSizes: [1, 2, 4, 8] },
      },
    ]);
  });

  afterAll(async () => {
    await worker?.stop();
  });

  it('declares pixel_values FP32 [-1, 3, 224, 224] and logits [-1, 5] in its metadata', async () => {
    const metadata = await worker.client.call<Message>('ModelMetadata', { name: 'vit' });
    expect(metadata.inputs).toEqual([{ name: 'pixel_values', datatype: 'FP32', shape: [-1, 3, 224, 224] }]);
    expect(metadata.outputs).toEqual([{ name: 'logits', datatype: 'FP32', shape: [-1, LABELS] }]);
  });

  it('merges concurrent calls of 1 to 3 rows into one batch, each row equal to its solo run within 1e-5', async () => {
    const rows = pixelRows(9, 41, ROW_DIMS);
    const expected = await unbatchedPixelOutputs(modelPath, rows, ROW_DIMS, 'logits');
    const calls = [rows.slice(0, 1), rows.slice(1, 3), rows.slice(3, 6), rows.slice(6, 7), rows.slice(7, 9)];
    const before = await batchSeries('vit');
    // Occupy the single instance so that the calls queue up together behind it.
    const held = worker.client.call('ModelInfer', pixelInferRequest('vit', rows.slice(0, 1), ROW_DIMS), {
      metadata: { [HOLD]: '3000' },
    });
    await waitFor(async () => (await batchSeries('vit')).count === before.count + 1, { intervalMs: 20 });
    const pending = calls.map((callRows, index) =>
      worker.client.call<Message>(
        'ModelInfer',
        pixelInferRequest('vit', callRows, ROW_DIMS, { id: `c${index}` }),
      ),
    );
    await waitFor(
      async () =>
        metricValue(await worker.metrics(), 'modelgate_queue_depth', { model: 'vit', version: '1' }) ===
        rows.length,
      { intervalMs: 20 },
    );
    const responses = await Promise.all(pending);
    await held;

    let row = 0;
    responses.forEach((response, index) => {
      expect(response.id).toBe(`c${index}`);
      const logits = fp32Output(response, 'logits');
      const callRows = calls[index]?.length ?? 0;
      expect(logits.shape).toEqual([callRows, LABELS]);
      for (let r = 0; r < callRows; r += 1, row += 1) {
        const got = logits.data.subarray(r * LABELS, (r + 1) * LABELS);
        expect(maxAbsDiff(got, expected[row]!)).toBeLessThan(1e-5);
      }
    });
    const after = await batchSeries('vit');
    // The held batch of 1, then every queued row in one batch of 9.
    expect(after.count - before.count).toBe(2);
    expect(after.sum - before.sum).toBe(1 + rows.length);
  });

  it('honours preferred sizes [1, 2, 4, 8]: 5 rows queued behind a held batch leave as 4, then 1', async () => {
    const rows = pixelRows(6, 43, ROW_DIMS);
    const expected = await unbatchedPixelOutputs(modelPath, rows, ROW_DIMS, 'logits');
    const before = await batchSeries('vit-preferred');
    const held = worker.client.call(
      'ModelInfer',
      pixelInferRequest('vit-preferred', rows.slice(0, 1), ROW_DIMS),
      { metadata: { [HOLD]: '3000' } },
    );
    await waitFor(async () => (await batchSeries('vit-preferred')).count === before.count + 1, {
      intervalMs: 20,
    });
    const pending = rows
      .slice(1)
      .map((pixels) =>
        worker.client.call<Message>('ModelInfer', pixelInferRequest('vit-preferred', [pixels], ROW_DIMS)),
      );
    await waitFor(
      async () =>
        metricValue(await worker.metrics(), 'modelgate_queue_depth', {
          model: 'vit-preferred',
          version: '1',
        }) === 5,
      { intervalMs: 20 },
    );
    const responses = await Promise.all(pending);
    await held;
    responses.forEach((response, index) => {
      expect(maxAbsDiff(fp32Output(response, 'logits').data, expected[index + 1]!)).toBeLessThan(1e-5);
    });

    const after = await batchSeries('vit-preferred');
    // Batches of 1 (held), 4 (the preferred size ≤ 5) and 1 (the rest): not one batch of 5.
    expect(after.count - before.count).toBe(3);
    expect(after.sum - before.sum).toBe(6);
    expect(after.le1 - before.le1).toBe(2);
    expect(after.le2 - before.le2).toBe(2);
    expect(after.le4 - before.le4).toBe(3);
  });

  it('refuses pixel_values of another image size, naming the dim', async () => {
    const request = pixelInferRequest('vit', pixelRows(1, 47, [3, 32, 32]), [3, 32, 32]);
    await expect(worker.client.call('ModelInfer', request)).rejects.toMatchObject({
      details: expect.stringContaining(
        "input 'pixel_values' has shape [1, 3, 32, 32]; dim 2 must be 224",
      ) as unknown,
    });
  });
});
