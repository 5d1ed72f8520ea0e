import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { env, pipeline } from '@huggingface/transformers';
import { ensureFixture } from '@modelgate/fixtures';
import {
  type HttpAnswer,
  type RunningGateway,
  type RunningWorker,
  batchesStarted,
  freePort,
  metricValue,
  startGateway,
  startWorkerWithSnapshot,
  tokenInferRequest,
  tokenRows,
  waitFor,
  writeSnapshot,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

env.allowRemoteModels = false;
env.allowLocalModels = true;

const TOLERANCE = 1e-4;
const HOLD = 'x-modelgate-test-hold-ms';
const TEXTS = ['I love this movie, it was wonderful!', 'A terrible, awful film.', 'ok'];

interface Prediction {
  label: string;
  score: number;
}
interface ServeBody {
  endpoint: string;
  model: string;
  version: string;
  route: string;
  predictions: unknown[];
}
interface ErrorBody {
  error: { code: string; message: string; request_id: string; field?: string };
}

const body = (answer: HttpAnswer) => answer.body as ServeBody;
const errorOf = (answer: HttpAnswer) => (answer.body as ErrorBody).error;

async function reference(task: 'text-classification', fixture: string, texts: string[], topK: number | null) {
  env.localModelPath = dirname(await ensureFixture(fixture));
  const classifier = await pipeline(task, fixture, { dtype: 'fp32', local_files_only: true });
  try {
    return (await Promise.all(
      texts.map((text) => classifier(text, { top_k: topK })),
    )) as unknown as Prediction[][];
  } finally {
    await classifier.dispose();
  }
}

function expectScores(actual: Prediction[], expected: Prediction[]): void {
  expect(actual.map((p) => p.label)).toEqual(expected.map((p) => p.label));
  actual.forEach((p, i) => expect(Math.abs(p.score - (expected[i]?.score ?? NaN))).toBeLessThan(TOLERANCE));
}

describe('gateway: POST /serve/<endpoint> against real worker processes', () => {
  let workers: RunningWorker[] = [];
  let gateway: RunningGateway;

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-test-'));
    const ports = [await freePort(), await freePort()];
    const addresses = ports.map((port) => `127.0.0.1:${port}`);
    const snapshot = await writeSnapshot(
      dir,
      [
        { name: 'bert', fixture: 'tiny-bert-sst2', version: '1' },
        { name: 'bert', fixture: 'tiny-bert-sst2', version: '2' },
        { name: 'distil', fixture: 'tiny-distilbert-sst2' },
        // Neither routed nor the newest: the default version policy (latest 1) leaves distil:2 unloaded.
        { name: 'distil', fixture: 'tiny-distilbert-sst2', version: '2' },
        { name: 'distil', fixture: 'tiny-distilbert-sst2', version: '3' },
        { name: 'embed', fixture: 'tiny-bert-embedder', task: 'feature-extraction' },
        { name: 'multi', fixture: 'tiny-bert-multilabel' },
        { name: 'small', fixture: 'tiny-bert-sst2', batching: { maxBatchSize: 1, maxQueueSize: 2 } },
        { name: 'orphan', fixture: 'tiny-bert-sst2', workerGroup: 'nowhere' },
      ],
      {
        workerGroups: [{ name: 'default', addresses }],
        endpoints: [
          {
            name: 'sentiment',
            task: 'text-classification',
            routes: [
              { model: 'bert:1', weight: 80, role: 'primary' },
              { model: 'bert:2', weight: 20, role: 'canary' },
            ],
          },
          {
            name: 'distil',
            task: 'text-classification',
            routes: [{ model: 'distil:1', weight: 100, role: 'primary' }],
          },
          {
            name: 'embed',
            task: 'feature-extraction',
            routes: [{ model: 'embed:1', weight: 100, role: 'primary' }],
            postprocessing: { pooling: 'mean', normalize: true },
          },
          {
            name: 'multi',
            task: 'text-classification',
            routes: [{ model: 'multi:1', weight: 100, role: 'primary' }],
          },
          {
            name: 'strict',
            task: 'text-classification',
            routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
            preprocessing: { maxTokens: 16, truncation: false, maxBatchItems: 4, maxInputChars: 500 },
          },
          {
            name: 'small',
            task: 'text-classification',
            routes: [{ model: 'small:1', weight: 100, role: 'primary' }],
          },
          {
            name: 'hurry',
            task: 'text-classification',
            routes: [{ model: 'small:1', weight: 100, role: 'primary' }],
            timeoutMs: 400,
          },
          {
            name: 'orphan',
            task: 'text-classification',
            routes: [{ model: 'orphan:1', weight: 100, role: 'primary' }],
          },
        ],
      },
    );
    workers = await Promise.all(
      ports.map((port) => startWorkerWithSnapshot(snapshot, { WORKER_GRPC_PORT: String(port) })),
    );
    gateway = await startGateway(snapshot);
  });

  afterAll(async () => {
    await gateway?.stop();
    await Promise.all(workers.map((worker) => worker.stop()));
  });

  it('classifies single and batch inputs exactly like the transformers pipeline', async () => {
    const expected = await reference('text-classification', 'tiny-bert-sst2', TEXTS, 2);
    const single = await gateway.post('/serve/sentiment/1', { text: TEXTS[0], parameters: { top_k: 2 } });
    expect(single.status).toBe(200);
    expect(body(single)).toMatchObject({
      endpoint: 'sentiment',
      model: 'bert',
      version: '1',
      route: 'pinned',
    });
    expectScores(body(single).predictions[0] as Prediction[], expected[0]!);
    expect(single.headers.get('x-modelgate-model')).toBe('bert:1');
    expect(single.headers.get('server-timing')).toMatch(
      /^tokenize;dur=[\d.]+, queue;dur=[\d.]+, infer;dur=[\d.]+, post;dur=[\d.]+, total;dur=[\d.]+$/,
    );
    const batch = await gateway.post('/serve/sentiment/1', { text: TEXTS, parameters: { top_k: 2 } });
    expect(body(batch).predictions).toHaveLength(3);
    body(batch).predictions.forEach((p, i) => expectScores(p as Prediction[], expected[i]!));
  });

  it('serves the DistilBERT-style model, which has no token_type_ids', async () => {
    const expected = await reference('text-classification', 'tiny-distilbert-sst2', TEXTS, 1);
    const answer = await gateway.post('/serve/distil', { text: TEXTS });
    expect(answer.status).toBe(200);
    body(answer).predictions.forEach((p, i) => expectScores(p as Prediction[], expected[i]!));
  });

  it('uses sigmoid for the multi-label model and returns every label', async () => {
    const expected = await reference('text-classification', 'tiny-bert-multilabel', TEXTS.slice(0, 2), null);
    const answer = await gateway.post('/serve/multi', { text: TEXTS.slice(0, 2) });
    expect(answer.status).toBe(200);
    const predictions = body(answer).predictions as Prediction[][];
    expect(predictions[0]).toHaveLength(4);
    const sum = predictions[0]!.reduce((total, p) => total + p.score, 0);
    expect(Math.abs(sum - 1)).toBeGreaterThan(1e-3); // independent sigmoids, not a softmax
    predictions.forEach((p, i) => expectScores(p, expected[i]!));
  });

  it('returns L2-normalized mean-pooled embeddings of the hidden size, like the pipeline', async () => {
    env.localModelPath = dirname(await ensureFixture('tiny-bert-embedder'));
    const extractor = await pipeline('feature-extraction', 'tiny-bert-embedder', {
      dtype: 'fp32',
      local_files_only: true,
    });
    const expected = (await extractor(TEXTS, { pooling: 'mean', normalize: true })).tolist() as number[][];
    await extractor.dispose();
    const answer = await gateway.post('/serve/embed', { text: TEXTS });
    expect(answer.status).toBe(200);
    const embeddings = (body(answer).predictions as { embedding: number[] }[]).map((p) => p.embedding);
    embeddings.forEach((vector, i) => {
      expect(vector).toHaveLength(128);
      expect(Math.abs(Math.hypot(...vector) - 1)).toBeLessThan(1e-5);
      vector.forEach((v, j) => expect(Math.abs(v - (expected[i]?.[j] ?? NaN))).toBeLessThan(TOLERANCE));
    });
  });

  it('splits traffic 80/20 by route weight, keeps a sticky key on one route, and lets a pin ignore weights', async () => {
    const counts = { '1': 0, '2': 0 } as Record<string, number>;
    for (let round = 0; round < 20; round++) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, () => gateway.post('/serve/sentiment', { text: 'route me' })),
      );
      for (const answer of answers) counts[body(answer).version] = (counts[body(answer).version] ?? 0) + 1;
    }
    expect((counts['1'] ?? 0) + (counts['2'] ?? 0)).toBe(2000);
    expect(Math.abs((counts['2'] ?? 0) / 2000 - 0.2)).toBeLessThanOrEqual(0.03);

    for (const key of ['user-1', 'user-2', 'user-3', 'user-4']) {
      const versions = new Set<string>();
      for (let i = 0; i < 20; i++) {
        versions.add(
          body(await gateway.post('/serve/sentiment', { text: 'x' }, { 'x-modelgate-route-key': key }))
            .version,
        );
      }
      expect(versions.size).toBe(1);
    }
    for (let i = 0; i < 20; i++) {
      const pinned = await gateway.post('/serve/sentiment/2', { text: 'x' });
      expect(body(pinned)).toMatchObject({ version: '2', route: 'pinned' });
    }
  });

  it('serves a pinned version the version policy loads, and says why one it leaves unloaded is not served', async () => {
    const newest = await gateway.post('/serve/distil/3', { text: 'x' });
    expect(newest.status).toBe(200);
    expect(body(newest)).toMatchObject({ model: 'distil', version: '3', route: 'pinned' });
    const unloaded = await gateway.post('/serve/distil/2', { text: 'x' });
    expect(unloaded.status).toBe(404);
    expect(errorOf(unloaded).message).toBe(
      'model distil:2 is not loaded: no endpoint routes it and the version policy of distil (latest 1) ' +
        "does not select it; route it, or load it with 'modelgate model policy distil all' (or 'specific:2')",
    );
  });

  it.each([
    ['an unknown endpoint', '/serve/nope', { text: 'x' }, {}, 404, 'NOT_FOUND'],
    ['a path that tries to climb out', '/serve/..%2f..%2fetc', { text: 'x' }, {}, 404, 'NOT_FOUND'],
    ['an unknown version', '/serve/sentiment/9', { text: 'x' }, {}, 404, 'NOT_FOUND'],
    ['malformed JSON', '/serve/sentiment', '{"text": ', {}, 400, 'INVALID_ARGUMENT'],
    [
      'a query string, which no route reads',
      '/serve/sentiment?top_k=3',
      { text: 'x' },
      {},
      400,
      'INVALID_ARGUMENT',
    ],
    ['a body without text', '/serve/sentiment', { txt: 'x' }, {}, 400, 'INVALID_ARGUMENT'],
    [
      'a text/plain body',
      '/serve/sentiment',
      'hello',
      { 'content-type': 'text/plain' },
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    [
      'a body over the size limit',
      '/serve/sentiment',
      { text: 'a'.repeat(2_000_000) },
      {},
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    [
      'a batch over maxBatchItems',
      '/serve/strict',
      { text: ['a', 'b', 'c', 'd', 'e'] },
      {},
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    ['a text over maxInputChars', '/serve/strict', { text: 'a '.repeat(300) }, {}, 413, 'PAYLOAD_TOO_LARGE'],
    [
      'too many tokens with truncation off',
      '/serve/strict',
      { text: 'word '.repeat(40) },
      {},
      422,
      'TOKEN_LIMIT_EXCEEDED',
    ],
    ['an endpoint whose model has no worker', '/serve/orphan', { text: 'x' }, {}, 503, 'UNAVAILABLE'],
  ] as const)(
    'answers %s with its status and a JSON error',
    async (_case, path, payload, headers, status, code) => {
      const answer = await gateway.post(path, payload, headers);
      expect(answer.status).toBe(status);
      expect(errorOf(answer)).toMatchObject({ code });
      expect(errorOf(answer).request_id).toBe(answer.headers.get('x-request-id'));
      expect(JSON.stringify(answer.body)).not.toMatch(/\n\s+at /); // never a stack trace
    },
  );

  it('names the missing field', async () => {
    const answer = await gateway.post('/serve/sentiment', {});
    expect(errorOf(answer)).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'text' });
    expect(errorOf(answer).message).toContain('text');
  });

  /** Holds a batch of model small on every worker for `holdMs`; resolves once each has started. */
  async function holdSmallOnEveryWorker(request: Record<string, unknown>, holdMs: number) {
    const before = await Promise.all(workers.map((worker) => batchesStarted(worker, 'small')));
    const held = workers.map((worker) =>
      worker.client.call('ModelInfer', request, { metadata: { [HOLD]: String(holdMs) } }),
    );
    await waitFor(async () => {
      const now = await Promise.all(workers.map((worker) => batchesStarted(worker, 'small')));
      return now.every((count, i) => count > before[i]!);
    });
    return held;
  }

  it('answers 429 with Retry-After when the worker queues are full', async () => {
    const request = tokenInferRequest('small', tokenRows(1, 3, 6, 6));
    const held = await holdSmallOnEveryWorker(request, 2500);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => gateway.post('/serve/small', { text: 'x' })),
    );
    await Promise.all(held);
    const full = answers.filter((a) => a.status === 429);
    expect(full.length).toBeGreaterThan(0);
    for (const answer of full) {
      expect(errorOf(answer).code).toBe('QUEUE_FULL');
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
  });

  it('answers 504 when the endpoint deadline passes while the request waits on a worker', async () => {
    const request = tokenInferRequest('small', tokenRows(1, 4, 6, 6));
    const held = await holdSmallOnEveryWorker(request, 2000);
    const answer = await gateway.post('/serve/hurry', { text: 'x' });
    expect(answer.status).toBe(504);
    expect(errorOf(answer).code).toBe('DEADLINE_EXCEEDED');
    await Promise.all(held);
  });

  it('loses no request when one of two workers is killed under load, and moves traffic to the survivor', async () => {
    const victim = workers[1]!;
    let sending = true;
    let victimGone = false;
    void victim.process.exited.then(() => (victimGone = true));
    const answers: { status: number; afterKill: boolean }[] = [];
    const clients = Array.from({ length: 32 }, async () => {
      while (sending) {
        const afterKill = victimGone; // sent once the victim had exited
        answers.push({
          status: (await gateway.post('/serve/sentiment', { text: 'keep going' })).status,
          afterKill,
        });
      }
    });
    const served = async (worker: RunningWorker) =>
      metricValue(await worker.metrics(), 'modelgate_inference_requests_total', {
        model: 'bert',
        version: '1',
        status: 'ok',
      });
    try {
      // Both workers are taking the load before one of them dies.
      const before = await Promise.all(workers.map(served));
      await waitFor(async () =>
        (await Promise.all(workers.map(served))).every((n, i) => n >= before[i]! + 20),
      );
      victim.process.child.kill('SIGKILL');
      await victim.process.exited;
      await waitFor(() => answers.filter((a) => a.afterKill).length >= 200);
    } finally {
      sending = false;
      await Promise.all(clients);
    }
    expect(answers.length).toBeGreaterThan(100);
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    const after = await Promise.all(
      Array.from({ length: 20 }, () => gateway.post('/serve/sentiment', { text: 'x' })),
    );
    expect(after.every((a) => a.status === 200)).toBe(true);
  });
});
