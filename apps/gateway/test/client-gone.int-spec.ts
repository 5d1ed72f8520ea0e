// A client that closes its connection gives its request up (HTTP/1.1 has no other way to cancel
// one): every serving route then cancels its worker call, as /serve does (serve-routes.int-spec.ts),
// so the worker drops the request from its queue instead of computing an answer nobody reads.
import http from 'node:http';
import {
  type RunningGateway,
  type RunningWorker,
  metricValue,
  startServingPair,
  tokenInferRequest,
  tokenRows,
  waitFor,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';

const HOLD = 'x-modelgate-test-hold-ms';
/**
 * How long each route's model keeps its only batch slot busy: the request under test waits in the
 * worker's queue meanwhile. A margin, not a measurement: the test waits on metrics, never on it.
 */
const HOLD_MS = 10_000;

/** One serving route, on a model of its own (so that each case holds its own batch slot). */
interface RouteCase {
  path: string;
  model: string;
  body: unknown;
}

const CASES: RouteCase[] = [
  { path: '/v1/embeddings', model: 'openai-embed', body: { model: 'openai-embedder', input: 'never mind' } },
  {
    path: '/v2/models/tensors/infer',
    model: 'tensors',
    body: {
      inputs: ['input_ids', 'attention_mask', 'token_type_ids'].map((name, i) => ({
        name,
        shape: [1, 4],
        datatype: 'INT64',
        data: i === 0 ? [101, 7592, 2088, 102] : i === 1 ? [1, 1, 1, 1] : [0, 0, 0, 0],
      })),
    },
  },
  { path: '/embed', model: 'tei-embed', body: { model: 'tei-embedder', inputs: 'never mind' } },
  {
    path: '/rerank',
    model: 'rerank',
    body: { model: 'ranker', query: 'What is the capital of France?', texts: ['Paris.'] },
  },
];

describe('gateway: a client that closes its connection cancels its worker call, on every serving route', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;
  /** The held calls, answered once their hold ends; awaited before the worker stops. */
  const held: Promise<unknown>[] = [];

  beforeAll(async () => {
    // One batch of one row at a time per model: a held batch leaves the next request queued.
    const batching = { maxBatchSize: 1, maxQueueSize: 4 };
    ({ worker, gateway } = await startServingPair(
      [
        { name: 'openai-embed', fixture: 'tiny-bert-embedder', task: 'feature-extraction', batching },
        { name: 'tensors', fixture: 'tiny-bert-sst2', task: 'raw', batching },
        { name: 'tei-embed', fixture: 'tiny-bert-embedder', task: 'feature-extraction', batching },
        { name: 'rerank', fixture: 'tiny-bert-reranker', task: 'text-ranking', batching },
      ],
      {
        endpoints: [
          {
            name: 'openai-embedder',
            task: 'feature-extraction',
            routes: [{ model: 'openai-embed:1', weight: 100, role: 'primary' }],
          },
          {
            name: 'tei-embedder',
            task: 'feature-extraction',
            routes: [{ model: 'tei-embed:1', weight: 100, role: 'primary' }],
          },
          {
            name: 'ranker',
            task: 'text-ranking',
            routes: [{ model: 'rerank:1', weight: 100, role: 'primary' }],
          },
        ],
      },
    ));
  });

  afterAll(async () => {
    await gateway?.stop();
    await Promise.all(held);
    await worker?.stop();
  });

  /** A worker metric of `model` (version 1), from a fresh scrape. */
  const workerMetric = async (name: string, model: string, labels: Record<string, string> = {}) =>
    metricValue(await worker.metrics(), name, { model, version: '1', ...labels });

  it.each(CASES)(
    '$path: the worker drops the queued call once the client has gone',
    async ({ path, model, body }) => {
      const cancelled = () =>
        workerMetric('modelgate_inference_requests_total', model, { status: 'cancelled' });
      const cancelledBefore = await cancelled();
      const dispatchedBefore = await workerMetric('modelgate_batch_size_count', model);
      // Keep the model's only batch slot busy, so the route's call waits in the worker's queue.
      held.push(
        worker.client
          .call('ModelInfer', tokenInferRequest(model, tokenRows(1, 3, 6, 6)), {
            metadata: { [HOLD]: String(HOLD_MS) },
          })
          .catch((error: unknown) => error),
      );
      await waitFor(async () => (await workerMetric('modelgate_batch_size_count', model)) > dispatchedBefore);

      const text = JSON.stringify(body);
      const request = http.request(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      });
      request.on('error', () => undefined); // the client itself hangs up
      request.end(text);
      await waitFor(async () => (await workerMetric('modelgate_queue_depth', model)) > 0, {
        describe: () => `the call of ${path} never reached the worker's queue`,
      });

      request.destroy();
      // Not cancelled, the call would wait out the hold and then be computed (status "ok").
      await waitFor(async () => (await cancelled()) > cancelledBefore, {
        describe: () => `the worker did not see the call of ${path} cancelled`,
      });
    },
  );
});
