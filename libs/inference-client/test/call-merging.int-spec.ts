import { isModelgateError } from '@modelgate/contracts';
import {
  type InferRequest,
  type InferResult,
  type RowLayout,
  InferenceClient,
  modelRowLayout,
} from '@modelgate/inference-client';
import { type RunningWorker, maxAbsDiff, metricValue, startWorker, tokenRows } from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fp32Data, tokenInputs } from './support/token-inputs.js';

const HOLD = 'x-modelgate-test-hold-ms';
const BATCHING = { maxBatchSize: 8 };
const MODELS = [
  { name: 'bert', fixture: 'tiny-bert-sst2', batching: BATCHING },
  { name: 'ner', fixture: 'tiny-bert-ner', task: 'token-classification', batching: BATCHING },
  { name: 'embed', fixture: 'tiny-bert-embedder', task: 'feature-extraction', batching: BATCHING },
] as const;

interface MetadataAnswer {
  inputs: { name: string }[];
  outputs: { name: string; shape: (number | string)[] }[];
}

/** Calls of one turn, made by the real client, merged into ModelInfers on a real worker. */
describe('merged calls against a real worker', () => {
  let worker: RunningWorker;
  let client: InferenceClient;
  const layouts = new Map<string, RowLayout>();

  const request = (model: string, rows: number[][], extra: Partial<InferRequest> = {}): InferRequest => ({
    modelName: model,
    modelVersion: '1',
    inputs: tokenInputs(rows),
    deadlineEpochMs: Date.now() + 10_000,
    addresses: [worker.grpcAddress],
    ...extra,
  });
  const merged = (model: string, rows: number[][], extra: Partial<InferRequest> = {}) =>
    client.infer({ ...request(model, rows, extra), merge: layouts.get(model)! });
  const callsOf = async (model: string) =>
    metricValue(await worker.metrics(), 'modelgate_inference_requests_total', {
      model,
      version: '1',
      status: 'ok',
    });

  beforeAll(async () => {
    worker = await startWorker([...MODELS]);
    client = new InferenceClient();
    for (const { name } of MODELS) {
      const answer = await worker.client.call<MetadataAnswer>('ModelMetadata', { name, version: '1' });
      const outputs = answer.outputs.map((o) => ({ name: o.name, dims: o.shape.map(Number) }));
      layouts.set(
        name,
        modelRowLayout(
          BATCHING.maxBatchSize,
          answer.inputs.map((i) => i.name),
          outputs,
        ),
      );
    }
  });

  afterAll(async () => {
    await client?.close();
    await worker?.stop();
  });

  it.each(MODELS.map((m) => [m.name]))(
    '%s: calls of one turn share a ModelInfer per length class and get what they get alone',
    async (model) => {
      // Lengths 9–16 share one ModelInfer; a 30-token call (over twice as long) gets its own.
      const lone = tokenRows(5, 31, 9, 16).map((row) => [row]);
      const pair = tokenRows(2, 37, 12, 12);
      const long = tokenRows(1, 39, 30, 30);
      const calls = [...lone, pair, long];
      const before = await callsOf(model);
      const results = await Promise.all(calls.map((rows, i) => merged(model, rows, { id: `m${i}` })));
      expect((await callsOf(model)) - before).toBe(2);
      for (const [i, rows] of calls.entries()) {
        const alone = await client.infer(request(model, rows));
        const result = results[i] as InferResult;
        expect(result.id).toBe(`m${i}`);
        expect(Object.keys(result.outputs).sort()).toEqual(Object.keys(alone.outputs).sort());
        for (const [name, output] of Object.entries(alone.outputs)) {
          expect(result.outputs[name]?.dims).toEqual(output.dims);
          expect(maxAbsDiff(fp32Data(result.outputs, name), fp32Data(alone.outputs, name))).toBeLessThan(
            1e-5,
          );
        }
      }
    },
  );

  it("never merges past the model's maxBatchSize", async () => {
    const before = await callsOf('bert');
    const results = await Promise.all(tokenRows(10, 41, 4, 12).map((row) => merged('bert', [row])));
    expect(results).toHaveLength(10);
    expect((await callsOf('bert')) - before).toBe(2);
  });

  it('answers a member that cancels at once while the merged call still runs for the others', async () => {
    const rows = tokenRows(2, 43, 5, 9);
    const controller = new AbortController();
    const hold = { metadata: { [HOLD]: '800' } };
    const settled: string[] = [];
    const leaving = merged('bert', [rows[0]!], { ...hold, signal: controller.signal }).then(
      () => settled.push('leaving answered'),
      (error: unknown) => settled.push(`leaving ${isModelgateError(error) ? error.code : String(error)}`),
    );
    const staying = merged('bert', [rows[1]!], hold).then((result) => {
      settled.push('staying answered');
      return result;
    });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await leaving;
    const result = await staying;
    expect(settled).toEqual(['leaving CANCELLED', 'staying answered']);
    expect(result.outputs.logits?.dims).toEqual([1, 2]);
  });

  it('fails a bad call alone: the merged call is re-run call by call and the others are answered', async () => {
    const good = tokenRows(3, 47, 4, 8).map((row) => [row]);
    const bad = [[101, 10_000_000, 102]];
    /** ModelInfer calls of bert answered, whatever their status. */
    const allCalls = async () =>
      (await worker.metrics())
        .split('\n')
        .filter(
          (line) => line.startsWith('modelgate_inference_requests_total{') && line.includes('model="bert"'),
        )
        .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
    const before = await allCalls();
    const outcomes = await Promise.allSettled([...good, bad].map((rows) => merged('bert', rows)));
    // One merged call (refused whole), then each of the four alone.
    expect((await allCalls()) - before).toBe(5);
    expect(outcomes.slice(0, 3).map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const failed = outcomes[3];
    expect(failed?.status).toBe('rejected');
    const reason = (failed as PromiseRejectedResult).reason as unknown;
    expect(isModelgateError(reason) && ['INVALID_ARGUMENT', 'INTERNAL'].includes(reason.code)).toBe(true);
  });
});
