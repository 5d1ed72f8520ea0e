import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type RunningGateway,
  type RunningWorker,
  freePort,
  startGateway,
  startWorkerWithSnapshot,
  waitFor,
  writeSnapshot,
} from '@modelgate/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REDIS_URL = process.env.MODELGATE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

interface JobView {
  job: string;
  status: string;
  result?: { predictions: unknown[]; version: string };
  error?: { code: string; message: string };
}

describe('gateway: asynchronous inference (Prefer: respond-async) on BullMQ', () => {
  const keyPrefix = `mgtest-async-${randomBytes(4).toString('hex')}`;
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let withoutRedis: RunningGateway;
  /** Keeps results 3 s, on keys of its own. */
  let shortLived: RunningGateway;
  const shortPrefix = `${keyPrefix}-short`;
  let port: number;
  let snapshot: Awaited<ReturnType<typeof writeSnapshot>>;

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-async-'));
    port = await freePort();
    snapshot = await writeSnapshot(dir, [{ name: 'bert', fixture: 'tiny-bert-sst2' }], {
      workerGroups: [{ name: 'default', addresses: [`127.0.0.1:${port}`] }],
      endpoints: [
        {
          name: 'sentiment',
          task: 'text-classification',
          routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
        },
        {
          name: 'short',
          task: 'text-classification',
          routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
          preprocessing: { maxTokens: 8 },
        },
      ],
    });
    worker = await startWorkerWithSnapshot(snapshot, { WORKER_GRPC_PORT: String(port) });
    [gateway, withoutRedis, shortLived] = await Promise.all([
      startGateway(snapshot, { REDIS_URL, REDIS_KEY_PREFIX: keyPrefix }),
      startGateway(snapshot),
      startGateway(snapshot, {
        REDIS_URL,
        REDIS_KEY_PREFIX: shortPrefix,
        GATEWAY_ASYNC_RESULT_TTL_SECONDS: '3',
      }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([gateway?.stop(), withoutRedis?.stop(), shortLived?.stop()]);
    await worker?.stop();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  const job = async (url: string): Promise<JobView> =>
    (await (await fetch(`${gateway.url}${url}`)).json()) as JobView;

  const JOB_ID = /^job-[A-Za-z0-9_-]{24}$/;

  /** Submits `body` asynchronously and waits for the job to finish; returns the job's id and view. */
  async function runAsync(body: unknown, requestId?: string): Promise<{ id: string; view: JobView }> {
    const accepted = await gateway.post('/serve/sentiment', body, {
      prefer: 'respond-async',
      ...(requestId === undefined ? {} : { 'x-request-id': requestId }),
    });
    expect(accepted.status).toBe(202);
    const { job: id, status_url } = accepted.body as { job: string; status_url: string };
    expect(status_url).toBe(`/jobs/${id}`);
    expect(accepted.headers.get('location')).toBe(status_url);
    let view: JobView | undefined;
    await waitFor(async () => ['succeeded', 'failed'].includes((view = await job(status_url)).status), {
      describe: () => JSON.stringify(view),
    });
    return { id, view: view! };
  }

  it('accepts the request with 202 and a status URL, then serves the same answer as the synchronous path', async () => {
    const body = { text: ['I love this movie', 'awful'], parameters: { top_k: 2 } };
    const { id, view } = await runAsync(body, 'async-1');
    expect(id).toMatch(JOB_ID); // made by the gateway, not the client's x-request-id
    expect(view.status).toBe('succeeded');
    const direct = await gateway.post('/serve/sentiment', body);
    expect(view.result?.predictions).toEqual((direct.body as { predictions: unknown[] }).predictions);
  });

  it('takes any x-request-id (digits, colons) as a correlation id only: one job per request, never a shared answer', async () => {
    const one = await runAsync({ text: 'hi' }, '12345');
    const three = await runAsync({ text: ['x', 'y', 'z'] }, '12345');
    const colon = await runAsync({ text: 'fine' }, 'tenant:7:call');
    for (const { id, view } of [one, three, colon]) {
      expect(id).toMatch(JOB_ID);
      expect(view.status).toBe('succeeded');
    }
    expect(new Set([one.id, three.id, colon.id]).size).toBe(3);
    expect(one.view.result?.predictions).toHaveLength(1);
    expect(three.view.result?.predictions).toHaveLength(3);
    // The client's own id does not name a job: nobody can read results by guessing request ids.
    for (const guess of ['12345', 'async-1', 'tenant:7:call']) {
      const answer = await fetch(`${gateway.url}/jobs/${encodeURIComponent(guess)}`);
      expect(answer.status).toBe(404);
    }
  });

  it('refuses bad input at once instead of queueing it, and answers 404 for an unknown job', async () => {
    const bad = await gateway.post('/serve/sentiment', { txt: 'x' }, { prefer: 'respond-async' });
    expect(bad.status).toBe(400);
    const unknownEndpoint = await gateway.post('/serve/nope', { text: 'x' }, { prefer: 'respond-async' });
    expect(unknownEndpoint.status).toBe(404);
    // Found only by tokenizing: refused as the synchronous call is, where it was queued and failed.
    const long = { text: 'one two three four five six seven eight nine', parameters: { truncation: false } };
    const sync = await gateway.post('/serve/short', long);
    const queued = await gateway.post('/serve/short', long, { prefer: 'respond-async' });
    expect(sync.status).toBe(422);
    expect(queued.status).toBe(422);
    const errorOf = (answer: typeof sync) =>
      (answer.body as { error: { code: string; message: string } }).error;
    expect(errorOf(queued)).toMatchObject({ code: errorOf(sync).code, message: errorOf(sync).message });
    const missing = await fetch(`${gateway.url}/jobs/never-queued`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });

  it('forgets a result once GATEWAY_ASYNC_RESULT_TTL_SECONDS has passed, and removes it from Redis, with no other job finishing', async () => {
    const accepted = await shortLived.post(
      '/serve/sentiment',
      { text: 'kept briefly' },
      { prefer: 'respond-async' },
    );
    expect(accepted.status).toBe(202);
    const { status_url: statusUrl, job: id } = accepted.body as { status_url: string; job: string };
    const read = async () => fetch(`${shortLived.url}${statusUrl}`);
    // Seen while kept (a job takes milliseconds; the TTL is 3 s)...
    await waitFor(async () => ((await (await read()).json()) as JobView).status === 'succeeded');
    // ...then unknown, and its hash gone from Redis: pruned, not only hidden.
    const redis = new Redis(REDIS_URL);
    try {
      await waitFor(
        async () =>
          (await read()).status === 404 &&
          (await redis.exists(`${shortPrefix}:bull:async-inference:${id}`)) === 0,
      );
    } finally {
      redis.disconnect();
    }
  });

  // Last: it restarts the worker.
  it('keeps retrying an accepted job while its model has no worker, and serves it once one is back', async () => {
    await worker.stop();
    const accepted = await gateway.post(
      '/serve/sentiment',
      { text: 'a fine film' },
      { prefer: 'respond-async' },
    );
    expect(accepted.status).toBe(202);
    const { job: id, status_url: statusUrl } = accepted.body as { job: string; status_url: string };
    // Past the three attempts (about 1.5 s) after which such a job used to fail for good.
    const redis = new Redis(REDIS_URL);
    try {
      await waitFor(
        async () => Number(await redis.hget(`${keyPrefix}:bull:async-inference:${id}`, 'atm')) >= 4,
        {
          timeoutMs: 60_000,
        },
      );
    } finally {
      redis.disconnect();
    }
    expect((await job(statusUrl)).status).toBe('queued');
    worker = await startWorkerWithSnapshot(snapshot, { WORKER_GRPC_PORT: String(port) });
    let view: JobView | undefined;
    await waitFor(async () => ['succeeded', 'failed'].includes((view = await job(statusUrl)).status), {
      timeoutMs: 90_000,
      describe: () => JSON.stringify(view),
    });
    expect(view?.status, JSON.stringify(view)).toBe('succeeded');
  });

  it('answers 503 saying it needs Redis on a gateway without REDIS_URL', async () => {
    const answer = await withoutRedis.post('/serve/sentiment', { text: 'x' }, { prefer: 'respond-async' });
    expect(answer.status).toBe(503);
    expect((answer.body as { error: { message: string } }).error.message).toContain('needs Redis');
  });
});
