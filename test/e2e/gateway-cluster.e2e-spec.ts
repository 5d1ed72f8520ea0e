// A gateway pod of two event loops (GATEWAY_WORKERS=2) with real processes (issue 15): a registry,
// a worker and the gateway following it through Redis. Requests go over a new connection each, so
// the cluster primary hands them to the loops in turn; the gateway's request log (info level,
// each line with its loop's pid and the request id) tells which loop answered which.
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import {
  type RunningGateway,
  type RunningWorker,
  waitFor,
  fixtureRegistration,
  waitForPrepared,
  type RunningRegistry,
  TEST_REDIS_URL,
  startRegistryProcess,
} from '@modelgate/testing';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Isolation, isolate } from '../../apps/registry/test/support/registry-harness.js';
import { startLiveWorkerAndGateway } from './support/live-stack.js';

/** An answer and the x-request-id it was sent with. */
type Answer = { status: number; body: string; id: string };

let nextRequest = 0;

/** One request over a connection of its own, tagged with a new x-request-id (returned with it). */
function fresh(url: string, path: string, body?: unknown): Promise<Answer> {
  const id = `cluster-${process.pid}-${nextRequest++}`;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const call = httpRequest(
      new URL(path, url),
      {
        method: payload === undefined ? 'GET' : 'POST',
        agent: false,
        headers: { 'x-request-id': id, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), id }),
        );
      },
    );
    call.on('error', reject);
    call.end(payload);
  });
}

/** The sum of every sample of `name` (all label sets) in Prometheus text. */
function total(text: string, name: string): number {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** The JSON log lines of the gateway's processes. */
function logLines(gateway: RunningGateway): { msg?: string; pid?: number; reqId?: string }[] {
  return gateway.process
    .output()
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as { msg?: string; pid?: number; reqId?: string }];
      } catch {
        return [];
      }
    });
}

/** Pids of the event loops that started listening, in order. */
const listeningLoops = (gateway: RunningGateway): number[] =>
  logLines(gateway)
    .filter((line) => line.msg === 'gateway listening')
    .map((line) => line.pid!);

/** The pids of the loops that answered `ids`, once every one of them is logged. */
async function answeredBy(gateway: RunningGateway, ids: readonly string[]): Promise<Set<number>> {
  const wanted = new Set(ids);
  let pids = new Map<string, number>();
  await waitFor(() => {
    pids = new Map(
      logLines(gateway)
        .filter((line) => line.msg === 'request' && wanted.has(line.reqId ?? ''))
        .map((line) => [line.reqId!, line.pid!]),
    );
    return pids.size === wanted.size;
  });
  return new Set(pids.values());
}

describe('gateway pod with two event loops (Node cluster)', () => {
  let iso: Isolation;
  let registry: RunningRegistry;
  let worker: RunningWorker;
  let gateway: RunningGateway;

  const latestRevision = async (): Promise<number> =>
    Number((await registry.admin.get<{ revision: number }>('/v1/config/snapshot')).body.revision);
  const serve = (text = 'one loop or the other') => fresh(gateway.url, '/serve/pods', { text });
  const scrape = async (): Promise<string> => (await fresh(gateway.url, '/metrics')).body;
  /** Queues one async request (prefer: respond-async) and waits until the pod's consumer has run it. */
  const runAsyncJob = async (): Promise<void> => {
    const answer = await fetch(`${gateway.url}/serve/pods`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ text: 'later' }),
    });
    expect(answer.status).toBe(202);
    const { job } = (await answer.json()) as { job: string };
    await waitFor(async () => {
      const view = (await fresh(gateway.url, `/jobs/${job}`)).body;
      return (JSON.parse(view) as { status: string }).status === 'succeeded';
    });
  };
  /** Serves `count` requests, one connection each; every answer must be 200 from model version `version`. */
  const serveAll = async (count: number, version: string): Promise<string[]> => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const answer = await serve();
      expect(answer.status, answer.body).toBe(200);
      expect((JSON.parse(answer.body) as { version: string }).version).toBe(version);
      ids.push(answer.id);
    }
    return ids;
  };

  beforeAll(async () => {
    iso = await isolate();
    registry = await startRegistryProcess(iso.env);
    for (const version of ['1', '2']) {
      const body = await fixtureRegistration(
        'tiny-bert-sst2',
        'tiny',
        'text-classification',
        join(iso.dir, 'files'),
      );
      expect((await registry.admin.post('/v1/models', { ...body, version })).status).toBe(202);
      expect((await waitForPrepared(registry.admin, `tiny:${version}`)).status).toBe('READY');
    }
    const created = await registry.admin.post('/v1/endpoints', {
      name: 'pods',
      task: 'text-classification',
      model: 'tiny:1',
    });
    expect(created.status).toBe(201);
    ({ worker, gateway } = await startLiveWorkerAndGateway(registry, iso, {
      worker: { WORKER_TEST_HOOKS: 'false' },
      gateway: {
        GATEWAY_WORKERS: '2',
        GATEWAY_DISCOVERY_INTERVAL_MS: '250',
        GATEWAY_LOG_LEVEL: 'info', // the request log names the loop that answered
      },
    }));
    await waitFor(() => listeningLoops(gateway).length === 2, { describe: () => gateway.process.output() });
    // Both loops answer (20 connections in a row) once both have a table and know the worker.
    await waitFor(
      async () =>
        (await Promise.all(Array.from({ length: 20 }, () => serve()))).every((a) => a.status === 200),
      { timeoutMs: 30_000 },
    );
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
    await registry?.stop();
    await iso?.dispose().catch(() => undefined);
  });

  it('answers every scrape with the requests of both loops: the same total each time, never half', async () => {
    const before = await scrape();
    const ids = await serveAll(40, '1');
    expect(await answeredBy(gateway, ids)).toEqual(new Set(listeningLoops(gateway)));
    const scrapes = await Promise.all(Array.from({ length: 8 }, () => fresh(gateway.url, '/metrics')));
    const scrapedBy = await answeredBy(
      gateway,
      scrapes.map((s) => s.id),
    );
    expect(scrapedBy).toEqual(new Set(listeningLoops(gateway)));
    for (const { status, body } of scrapes) {
      expect(status).toBe(200);
      expect(total(body, 'modelgate_requests_total')).toBe(total(before, 'modelgate_requests_total') + 40);
      expect(total(body, 'modelgate_request_duration_seconds_count')).toBe(
        total(before, 'modelgate_request_duration_seconds_count') + 40,
      );
    }
  });

  it('heartbeats once for the pod, under the primary’s pid, with both loops’ traffic', async () => {
    const revision = await latestRevision();
    const redis = new Redis(TEST_REDIS_URL);
    try {
      let beats: {
        id: string;
        revision: number | null;
        traffic?: { endpoints: Record<string, Record<string, { served: number }>> };
      }[] = [];
      await waitFor(
        async () => {
          const keys = await redis.keys(`${iso.keyPrefix}:node:gateway:*`);
          beats = (await Promise.all(keys.map((key) => redis.get(key)))).map(
            (v) => JSON.parse(v ?? '{}') as (typeof beats)[number],
          );
          return (
            beats.length === 1 &&
            beats[0]!.revision === revision &&
            (beats[0]!.traffic?.endpoints.pods?.['tiny:1']?.served ?? 0) >= 40
          );
        },
        { describe: () => JSON.stringify(beats) },
      );
      expect(beats[0]!.id).toMatch(new RegExp(`:${gateway.process.child.pid}$`));
    } finally {
      redis.disconnect();
    }
    const status = await registry.admin.get<{ nodes: { role: string; lag: number | null }[] }>('/v1/status');
    expect(status.body.nodes.filter((node) => node.role === 'gateway')).toEqual([
      expect.objectContaining({ lag: 0 }),
    ]);
  });

  it('runs one BullMQ consumer of async jobs for the pod, and either loop queues and reads them', async () => {
    const queue = new Queue('async-inference', {
      connection: new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null }),
      prefix: `${iso.keyPrefix}:bull`,
    });
    try {
      expect(await queue.getWorkers()).toHaveLength(1);
      await Promise.all(Array.from({ length: 4 }, runAsyncJob));
    } finally {
      await queue.close();
    }
  });

  it('applies a route change on both loops', async () => {
    const changed = await registry.admin.put('/v1/endpoints/pods/routes', {
      routes: [{ model: 'tiny:2', weight: 100, role: 'primary' }],
    });
    expect(changed.status).toBe(200);
    const revision = await latestRevision();
    const readiness = () => fresh(gateway.url, '/health/ready');
    await waitFor(async () =>
      (await Promise.all(Array.from({ length: 10 }, readiness))).every(
        (answer) => (JSON.parse(answer.body) as { revision: number }).revision === revision,
      ),
    );
    const ids = await serveAll(20, '2');
    expect(await answeredBy(gateway, ids)).toEqual(new Set(listeningLoops(gateway)));
  });

  it('welcomes a loop restarted after a crash with the config in force before it takes connections, and the pod’s counts do not go back', async () => {
    const before = total(await scrape(), 'modelgate_requests_total');
    const [killed] = listeningLoops(gateway);
    process.kill(killed!, 'SIGKILL');
    await waitFor(() => listeningLoops(gateway).length === 3, { describe: () => gateway.process.output() });
    const restarted = listeningLoops(gateway)[2]!;
    expect(total(await scrape(), 'modelgate_requests_total')).toBe(before);
    const ids = await serveAll(20, '2'); // none of them reaches the new loop before it has the route change
    expect(await answeredBy(gateway, ids)).toContain(restarted);
    expect(total(await scrape(), 'modelgate_requests_total')).toBe(before + 20);
    await runAsyncJob(); // the pod still has a consumer: the killed loop's duty passes to its replacement
  });

  it('on SIGTERM lets every live loop drain, then withdraws the pod’s heartbeat and exits 0', async () => {
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const beats = () => redis.keys(`${iso.keyPrefix}:node:gateway:*`);
      expect(await beats()).toHaveLength(1);
      expect(await gateway.stop('SIGTERM')).toBe(0);
      // Withdrawn, not expired: the primary renewed it until the last loop had exited.
      expect(await beats()).toEqual([]);
      // Both live loops logged that they drained (read once the pipe has delivered their last lines).
      const live = listeningLoops(gateway).slice(1);
      const drained = () =>
        logLines(gateway).filter((line) => line.msg === 'shutting down: drained' && live.includes(line.pid!));
      await waitFor(() => drained().length === live.length, { describe: () => gateway.process.output() });
    } finally {
      redis.disconnect();
    }
  });
});
