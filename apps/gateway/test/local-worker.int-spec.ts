import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRepoRoot } from '@modelgate/fixtures';
import {
  type RunningGateway,
  type RunningWorker,
  freePort,
  metricValue,
  startGateway,
  startServiceProcess,
  startWorkerWithSnapshot,
  waitFor,
  writeSnapshot,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_MAIN } from '@modelgate/testing';
import { type SseEvent, postSse } from './support/sse-client.js';

const SENTENCES = ['I love this movie', 'a dull and tedious film', 'the plot was fine'];

/** The WORKER_* variables of a co-located worker, on ports of its own. */
async function localWorkerEnv(dir: string, snapshot: string): Promise<Record<string, string>> {
  const [grpc, http] = [await freePort(), await freePort()];
  return {
    GATEWAY_LOCAL_WORKER: 'true',
    WORKER_HOST: '127.0.0.1',
    WORKER_GRPC_PORT: String(grpc),
    WORKER_HTTP_PORT: String(http),
    WORKER_CONFIG_FILE: snapshot,
    WORKER_CACHE_DIR: join(dir, 'worker-cache'),
    WORKER_ARTIFACT_ROOTS: join(findRepoRoot(), '.cache'),
    WORKER_LOG_LEVEL: 'warn',
  };
}

/** The co-located worker's /metrics. */
async function workerMetrics(env: Record<string, string>): Promise<string> {
  return (await fetch(`http://127.0.0.1:${env.WORKER_HTTP_PORT}/metrics`)).text();
}

const ok = (metrics: string, model: string) =>
  metricValue(metrics, 'modelgate_inference_requests_total', { model, version: '1', status: 'ok' });

describe('a gateway with a co-located worker (GATEWAY_LOCAL_WORKER)', () => {
  let snapshot: string;
  let dir: string;
  let colocated: RunningGateway;
  let colocatedEnv: Record<string, string>;
  let remote: RunningWorker;
  let distributed: RunningGateway;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gateway-local-worker-'));
    snapshot = await writeSnapshot(
      dir,
      [
        { name: 'bert', fixture: 'tiny-bert-sst2', instances: 1 },
        { name: 'gpt', fixture: 'tiny-gpt2', task: 'text-generation' },
      ],
      {
        endpoints: [
          {
            name: 'sentiment',
            task: 'text-classification',
            routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
          },
          {
            name: 'generate',
            task: 'text-generation',
            routes: [{ model: 'gpt:1', weight: 100, role: 'primary' }],
          },
        ],
      },
    );
    colocatedEnv = await localWorkerEnv(dir, snapshot);
    remote = await startWorkerWithSnapshot(snapshot);
    [colocated, distributed] = await Promise.all([
      startGateway(snapshot, colocatedEnv),
      startGateway(snapshot, { GATEWAY_WORKER_ADDRESSES: `default=${remote.grpcAddress}` }),
    ]);
    await waitFor(async () => (await colocated.post('/serve/sentiment', { text: 'warm' })).status === 200, {
      describe: () => colocated.process.output(),
    });
  });

  afterAll(async () => {
    await Promise.all([colocated?.stop(), distributed?.stop()]);
    await remote?.stop();
  });

  it('serves every model of its group with no separate worker, with the answers of the distributed path', async () => {
    const before = ok(await workerMetrics(colocatedEnv), 'bert');
    for (const text of SENTENCES) {
      const here = await colocated.post('/serve/sentiment', { text });
      const there = await distributed.post('/serve/sentiment', { text });
      expect(here.status).toBe(200);
      expect(there.status).toBe(200);
      const predictions = (answer: typeof here) =>
        (answer.body as { predictions: { label: string; score: number }[][] }).predictions[0]!;
      expect(predictions(here).map((p) => p.label)).toEqual(predictions(there).map((p) => p.label));
      predictions(here).forEach((p, i) => expect(p.score).toBeCloseTo(predictions(there)[i]!.score, 5));
      expect(here.headers.get('server-timing')).toMatch(/infer;dur=/);
    }
    const metrics = await workerMetrics(colocatedEnv);
    // Every request reached the worker in this process, and its lone batches ran inline.
    expect(ok(metrics, 'bert') - before).toBe(SENTENCES.length);
    expect(
      metricValue(metrics, 'modelgate_execution_path_rows_total', {
        model: 'bert',
        version: '1',
        path: 'inline',
      }),
    ).toBeGreaterThan(0);
  });

  it('streams generation from the co-located worker', async () => {
    const body = {
      text: 'once upon a time',
      parameters: { max_new_tokens: 4, do_sample: false },
      stream: true,
    };
    const read = async (url: string) => {
      const stream = await postSse(url, body);
      expect(stream.status).toBe(200);
      const events: SseEvent[] = [];
      for await (const event of stream.events) events.push(event);
      return events;
    };
    const here = await read(`${colocated.url}/serve/generate`);
    const there = await read(`${distributed.url}/serve/generate`);
    const end = (events: SseEvent[]) => JSON.parse(events.at(-1)!.data) as { generated_text: string };
    expect(here.at(-1)?.event).toBe('end');
    expect(end(here).generated_text).toBe(end(there).generated_text);
  });

  it('answers an unknown model version with the error a remote worker gives', async () => {
    const here = await colocated.post('/serve/sentiment/7', { text: 'x' });
    const there = await distributed.post('/serve/sentiment/7', { text: 'x' });
    expect(here.status).toBe(there.status);
    expect((here.body as { error: { code: string } }).error.code).toBe(
      (there.body as { error: { code: string } }).error.code,
    );
  });

  it('is a worker of the fleet: another gateway reaches it over gRPC', async () => {
    const other = await startGateway(snapshot, {
      GATEWAY_WORKER_ADDRESSES: `default=127.0.0.1:${colocatedEnv.WORKER_GRPC_PORT}`,
    });
    try {
      const before = ok(await workerMetrics(colocatedEnv), 'bert');
      expect((await other.post('/serve/sentiment', { text: 'over grpc' })).status).toBe(200);
      expect(ok(await workerMetrics(colocatedEnv), 'bert') - before).toBe(1);
    } finally {
      await other.stop();
    }
  });

  it('uses remote workers of its group beside the local one', async () => {
    const env = await localWorkerEnv(dir, snapshot);
    const both = await startGateway(snapshot, {
      ...env,
      GATEWAY_WORKER_ADDRESSES: `default=${remote.grpcAddress}`,
    });
    try {
      const remoteBefore = ok(await remote.metrics(), 'bert');
      // Concurrent calls: least-outstanding balancing spreads them over both workers.
      await waitFor(
        async () => {
          const answers = await Promise.all(
            Array.from({ length: 8 }, () => both.post('/serve/sentiment', { text: 'spread me' })),
          );
          expect(answers.every((answer) => answer.status === 200)).toBe(true);
          return (
            ok(await remote.metrics(), 'bert') > remoteBefore && ok(await workerMetrics(env), 'bert') > 0
          );
        },
        { describe: () => both.process.output() },
      );
    } finally {
      await both.stop();
    }
  });

  it('drains on SIGTERM and exits 0', async () => {
    const env = await localWorkerEnv(dir, snapshot);
    const leaving = await startGateway(snapshot, { ...env, GATEWAY_SHUTDOWN_DELAY_MS: '0' });
    await waitFor(async () => (await leaving.post('/serve/sentiment', { text: 'warm' })).status === 200);
    expect(await leaving.stop('SIGTERM')).toBe(0);
  });

  it('refuses more than one event loop beside a co-located worker, naming the variable', async () => {
    const refused = startServiceProcess(GATEWAY_MAIN, {
      ...colocatedEnv,
      GATEWAY_CONFIG_FILE: snapshot,
      GATEWAY_PORT: String(await freePort()),
      GATEWAY_WORKERS: '2',
    });
    const code = await refused.exited;
    expect(code).not.toBe(0);
    expect(refused.output()).toContain('GATEWAY_WORKERS: a co-located worker (GATEWAY_LOCAL_WORKER=true)');
  });
});
