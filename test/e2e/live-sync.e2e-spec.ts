// Live config sync with real processes (issue 6): a registry, two workers and two gateways
// following it through a private Redis, so restarting that Redis disturbs no other test file.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type OwnRedis,
  type RunningGateway,
  type RunningWorker,
  startGateway,
  startOwnRedis,
  startWorkerWithSnapshot,
  waitFor,
  fixtureRegistration,
  waitForPrepared,
  ADMIN_TOKEN,
  type RunningRegistry,
  startRegistryProcess,
} from '@modelgate/testing';
import { heartbeatIndexKey } from '@modelgate/config-sync';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runModelgate } from '../../apps/cli/test/support/cli-process.js';
import { type Isolation, isolate } from '../../apps/registry/test/support/registry-harness.js';
import { liveNodeSettings } from './support/live-stack.js';

const HEARTBEAT_TTL_MS = 2000;

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};

describe('live config sync: registry → Redis → workers and gateways', () => {
  let iso: Isolation;
  let redis: OwnRedis;
  let redisUrl: string;
  let registry: RunningRegistry & { process: { stop(signal?: NodeJS.Signals): Promise<number | string> } };
  let workers: RunningWorker[] = [];
  let gateways: RunningGateway[] = [];

  const latestRevision = async (): Promise<number> => (await registry.admin.configSnapshot()).revision;
  const gatewayRevision = async (gateway: RunningGateway): Promise<number> =>
    Number(
      ((await (await fetch(`${gateway.url}/health/ready`)).json()) as { revision: number | null }).revision ??
        -1,
    );
  const workerRevision = async (worker: RunningWorker): Promise<number> =>
    Number(
      ((await (await fetch(`${worker.httpUrl}/health/ready`)).json()) as { revision: number | null })
        .revision ?? -1,
    );
  /** Every gateway's and worker's applied revision. */
  const nodeRevisions = async (): Promise<number[]> =>
    Promise.all([...gateways.map(gatewayRevision), ...workers.map(workerRevision)]);
  const setRoutes = async (v1: number, v2: number): Promise<number> => {
    const answer = await registry.admin.put('/v1/endpoints/sync/routes', {
      routes: [
        { model: 'tiny:1', weight: v1, role: 'primary' },
        ...(v2 > 0 ? [{ model: 'tiny:2', weight: v2, role: 'canary' }] : []),
      ],
    });
    expect(answer.status).toBe(200);
    return performance.now();
  };
  const serve = (gateway: RunningGateway) => gateway.post('/serve/sync', { text: 'sync me' });
  /** Resolves once every gateway and worker has applied `revision` or a later one. */
  const applied = (revision: number, timeoutMs?: number) =>
    waitFor(async () => (await nodeRevisions()).every((r) => r >= revision), { timeoutMs, intervalMs: 5 });

  /**
   * Resolves once every gateway has read the heartbeat index after this call, as Redis's MONITOR
   * shows: each of their discovery loops has seen the fleet as it is now. Only gateways read it
   * on a timer (the registry reads it when asked for status or a rollout).
   */
  async function everyGatewayRereadsHeartbeats(redisClient: Redis): Promise<void> {
    const monitor = await redisClient.monitor();
    const readers = new Set<string>();
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (args[0]?.toLowerCase() === 'zrange' && args[1] === heartbeatIndexKey(iso.keyPrefix))
        readers.add(source);
    });
    try {
      await waitFor(() => readers.size >= gateways.length, { describe: () => [...readers].join(', ') });
    } finally {
      monitor.disconnect();
    }
  }

  beforeAll(async () => {
    redis = await startOwnRedis();
    redisUrl = redis.url;
    iso = await isolate();
    registry = await startRegistryProcess({ ...iso.env, REDIS_URL: redisUrl });
    for (const version of ['1', '2']) {
      const body = await fixtureRegistration(
        'tiny-bert-sst2',
        'tiny',
        'text-classification',
        join(iso.dir, 'files'),
      );
      await registry.admin.registerModel({ ...body, version });
      expect((await waitForPrepared(registry.admin, `tiny:${version}`)).status).toBe('READY');
    }
    await registry.admin.createEndpoint({ name: 'sync', task: 'text-classification', model: 'tiny:1' });

    const { unusedSnapshot, env, roots } = await liveNodeSettings(registry, iso, redisUrl);
    workers = await Promise.all(
      [0, 1].map(() =>
        startWorkerWithSnapshot(unusedSnapshot, {
          ...env,
          WORKER_ARTIFACT_ROOTS: roots,
          WORKER_HEARTBEAT_TTL_MS: String(HEARTBEAT_TTL_MS),
          WORKER_RECONCILE_INTERVAL_MS: '1000',
          WORKER_TEST_HOOKS: 'false',
        }),
      ),
    );
    gateways = await Promise.all(
      [0, 1].map(() =>
        startGateway(unusedSnapshot, {
          ...env,
          GATEWAY_ARTIFACT_ROOTS: roots,
          GATEWAY_RECONCILE_INTERVAL_MS: '1000',
          GATEWAY_DISCOVERY_INTERVAL_MS: '250',
        }),
      ),
    );
    for (const gateway of gateways) {
      await waitFor(async () => (await serve(gateway)).status === 200, { timeoutMs: 30_000 });
    }
  });

  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await Promise.all(workers.map((worker) => worker.stop()));
    await registry?.stop();
    await redis?.kill();
    await iso?.dispose().catch(() => undefined);
  });

  it('serves the endpoint registered through the registry on both gateways', async () => {
    for (const gateway of gateways) {
      const answer = await serve(gateway);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ endpoint: 'sync', model: 'tiny', version: '1', route: 'primary' });
    }
  });

  it('lists every node with its applied revision and model states in `modelgate status`', async () => {
    const revision = await latestRevision();
    await waitFor(async () => (await Promise.all(gateways.map(gatewayRevision))).every((r) => r >= revision));
    let status:
      | {
          revision: number;
          nodes: {
            role: string;
            revision: number | null;
            lag: number | null;
            models: Record<string, string>;
          }[];
        }
      | undefined;
    await waitFor(
      async () => {
        const run = await runModelgate(['status', '--json'], {
          registryUrl: registry.url,
          token: ADMIN_TOKEN,
        });
        expect(run.code).toBe(0);
        status = JSON.parse(run.stdout) as typeof status;
        const nodes = status?.nodes ?? [];
        return (
          nodes.filter((n) => n.role === 'worker').length === 2 &&
          nodes.filter((n) => n.role === 'gateway').length === 2 &&
          nodes.every((n) => n.lag === 0)
        );
      },
      { timeoutMs: 15_000, describe: () => JSON.stringify(status) },
    );
    for (const worker of status!.nodes.filter((n) => n.role === 'worker')) {
      expect(worker.models).toEqual({ 'tiny:1': 'READY', 'tiny:2': 'READY' });
    }
    const human = await runModelgate(['status'], { registryUrl: registry.url, token: ADMIN_TOKEN });
    expect(human.stdout).toContain(`latest revision ${status!.revision}`);
    expect(human.stdout).toMatch(/worker .*tiny:1 READY, tiny:2 READY/);
  });

  it('shows a 90/10 route change in the traffic of both gateways', async () => {
    await setRoutes(90, 10);
    const revision = await latestRevision();
    await waitFor(async () => (await Promise.all(gateways.map(gatewayRevision))).every((r) => r >= revision));
    for (const gateway of gateways) {
      const answers = await Promise.all(Array.from({ length: 400 }, () => serve(gateway)));
      const canary =
        answers.filter((a) => (a.body as { version: string }).version === '2').length / answers.length;
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(canary).toBeGreaterThan(0.04);
      expect(canary).toBeLessThan(0.16);
    }
  });

  it('applies each of 50 successive changes on every gateway and worker within 1 s (figures printed)', async () => {
    const delays: number[] = [];
    for (let change = 0; change < 50; change++) {
      const weight = 1 + (change % 30);
      const answeredAt = await setRoutes(100 - weight, weight);
      await applied(await latestRevision(), 10_000);
      delays.push(performance.now() - answeredAt);
    }
    const summary = {
      p50Ms: percentile(delays, 50),
      p99Ms: percentile(delays, 99),
      maxMs: Math.max(...delays),
    };
    console.log(`config change → applied on every node over 50 changes: ${JSON.stringify(summary)}`);
    expect(delays).toHaveLength(50);
    // A wide margin (about 30× the median measured here), not a speed test: a change that waits
    // for a poll or a reconnect instead of its announcement takes seconds.
    expect(delays.filter((delay) => delay >= 1000)).toEqual([]);
  });

  it('loses no request to 20 route changes made while 16 clients send traffic', async () => {
    let sending = true;
    const statuses: number[] = [];
    const clients = Array.from({ length: 16 }, async (_, i) => {
      const gateway = gateways[i % 2]!;
      while (sending) statuses.push((await serve(gateway)).status);
    });
    for (let change = 0; change < 20; change++) {
      await setRoutes(change % 2 === 0 ? 100 : 50, change % 2 === 0 ? 0 : 50);
      // Every node applies the change under traffic, and requests are answered after it.
      await applied(await latestRevision());
      const answered = statuses.length;
      await waitFor(() => statuses.length >= answered + 32);
    }
    sending = false;
    await Promise.all(clients);
    expect(statuses.length).toBeGreaterThan(100);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  });

  it('keeps v1 serving with zero errors while a corrupt v2 is registered, fails preparation and is refused as a route', async () => {
    let sending = true;
    const statuses: number[] = [];
    const clients = Array.from({ length: 8 }, async (_, i) => {
      while (sending) statuses.push((await serve(gateways[i % 2]!)).status);
    });
    const corrupt = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251));
    const path = join(iso.dir, 'files', 'corrupt.onnx');
    await writeFile(path, corrupt);
    const body = await fixtureRegistration(
      'tiny-bert-sst2',
      'tiny',
      'text-classification',
      join(iso.dir, 'files'),
    );
    const registered = await registry.admin.post('/v1/models', {
      ...body,
      version: '3',
      artifact: { uri: pathToFileURL(path).href, sha256: createHash('sha256').update(corrupt).digest('hex') },
    });
    expect(registered.status).toBe(202);
    const prepared = await waitForPrepared(registry.admin, 'tiny:3');
    expect(prepared.status).toBe('FAILED');
    expect(prepared.statusReason).toMatch(/onnxruntime/i);
    const refused = await registry.admin.put('/v1/endpoints/sync/routes', {
      routes: [
        { model: 'tiny:1', weight: 50, role: 'primary' },
        { model: 'tiny:3', weight: 50, role: 'canary' },
      ],
    });
    expect(refused.status).toBe(409);
    const answered = statuses.length;
    await waitFor(() => statuses.length >= answered + 32); // traffic goes on after the refusal
    sending = false;
    await Promise.all(clients);
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  });

  it('brings every node to the final revision after 200 rapid changes while subscriber connections are killed', async () => {
    const admin = new Redis(redisUrl);
    admin.on('error', () => undefined);
    try {
      for (let change = 0; change < 200; change++) {
        await setRoutes(100 - (change % 50), change % 50);
        if (change % 25 === 0) await admin.client('KILL', 'TYPE', 'pubsub');
      }
    } finally {
      admin.disconnect();
    }
    const revision = await latestRevision();
    await waitFor(
      async () => (await Promise.all(gateways.map(gatewayRevision))).every((r) => r === revision),
      {
        timeoutMs: 20_000,
      },
    );
    await waitFor(
      async () => {
        const ready = await Promise.all(
          workers.map(
            async (w) => (await (await fetch(`${w.httpUrl}/health/ready`)).json()) as { revision: number },
          ),
        );
        return ready.every((r) => r.revision === revision);
      },
      { timeoutMs: 20_000 },
    );
  });

  it('converges every node to the latest revision after Redis restarts', async () => {
    await redis.kill();
    await setRoutes(70, 30); // committed while Redis is down: the relay publishes it later
    await redis.start();
    await setRoutes(60, 40);
    const revision = await latestRevision();
    await waitFor(
      async () => (await Promise.all(gateways.map(gatewayRevision))).every((r) => r === revision),
      {
        timeoutMs: 20_000,
      },
    );
    for (const gateway of gateways) expect((await serve(gateway)).status).toBe(200);
  });

  it('drops a killed worker from routing within the heartbeat TTL, failing no request sent meanwhile', async () => {
    const probe = new Redis(redisUrl);
    probe.on('error', () => undefined);
    // 8 clients per gateway send traffic through the kill and until the worker has left routing.
    let sending = true;
    const failures: string[] = [];
    let sent = 0;
    const traffic = Promise.all(
      gateways.flatMap((gateway) =>
        Array.from({ length: 8 }, async () => {
          while (sending) {
            const answer = await serve(gateway);
            sent++;
            if (answer.status !== 200) failures.push(`${answer.status} ${JSON.stringify(answer.body)}`);
          }
        }),
      ),
    );
    await waitFor(() => sent >= 50); // traffic is flowing through both workers
    try {
      const before = await probe.keys(`${iso.keyPrefix}:node:worker:*`);
      expect(before).toHaveLength(2);
      // A heartbeat lives the TTL unless renewed: a dead worker's drops out within it.
      for (const key of before) {
        const ttlMs = await probe.pttl(key);
        expect(ttlMs).toBeGreaterThan(0);
        expect(ttlMs).toBeLessThanOrEqual(HEARTBEAT_TTL_MS);
      }
      workers[1]!.process.child.kill('SIGKILL');
      await waitFor(async () => (await probe.keys(`${iso.keyPrefix}:node:worker:*`)).length === 1, {
        intervalMs: 50,
      });
      await everyGatewayRereadsHeartbeats(probe);
    } finally {
      sending = false;
      await traffic;
      probe.disconnect();
    }
    expect(sent).toBeGreaterThan(50);
    expect(failures).toEqual([]);
    const answers = await Promise.all(
      gateways.flatMap((gateway) => Array.from({ length: 50 }, () => serve(gateway))),
    );
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
  });

  it('keeps serving unchanged while the registry is stopped', async () => {
    const failedFetches = (gateway: RunningGateway) =>
      gateway.process.output().split('fetching the config snapshot failed').length - 1;
    const before = gateways.map(failedFetches);
    await registry.stop();
    // A few reconcile rounds fail meanwhile, as each gateway logs.
    await waitFor(() => gateways.every((gateway, i) => failedFetches(gateway) >= before[i]! + 2));
    const answers = await Promise.all(
      gateways.flatMap((gateway) => Array.from({ length: 50 }, () => serve(gateway))),
    );
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
  });
});
