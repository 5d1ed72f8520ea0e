import { HeartbeatPublisher, type NodeReport, writeHeartbeat as publish } from '@modelgate/config-sync';
import { type ApiErrorBody, type FleetStatusView } from '@modelgate/contracts';
import {
  freePort,
  ADMIN_TOKEN,
  type RunningRegistry,
  withoutRedis,
  TEST_REDIS_URL,
} from '@modelgate/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Isolation, isolate, startRegistryInProcess } from './support/registry-harness.js';

describe('GET /v1/status', () => {
  let isolation: Isolation;
  let registry: RunningRegistry;
  let redis: Redis;

  /** Commits `count` config events, as admin mutations would. */
  const bumpRevision = async (count: number): Promise<number> => {
    for (let i = 0; i < count; i += 1) {
      await isolation.sql("INSERT INTO config_events (actor, summary) VALUES ('test', 'status test')");
    }
    const [row] = await isolation.sql<{ revision: string }>(
      'SELECT max(revision) AS revision FROM config_events',
    );
    return Number(row?.revision);
  };

  const writeHeartbeat = (beat: NodeReport, ageMs = 0): Promise<void> =>
    publish(redis, isolation.keyPrefix, beat, 30_000, Date.now() - ageMs);

  beforeAll(async () => {
    isolation = await isolate();
    registry = await startRegistryInProcess(isolation.env);
    redis = new Redis(TEST_REDIS_URL);
  });

  afterAll(async () => {
    redis?.disconnect();
    await registry?.stop();
    await isolation?.dispose();
  });

  it('lists the nodes heart-beating under its key prefix with their lag behind the latest revision', async () => {
    const latest = await bumpRevision(3);
    await writeHeartbeat(
      {
        role: 'worker',
        id: 'worker-a',
        address: '10.1.0.7:8001',
        workerGroup: 'default',
        revision: latest - 2,
        models: { 'sst2:1': 'READY', 'sst2:2': 'LOADING', 'sst2:3': 'FAILED' },
        reasons: { 'sst2:3': 'no such file (gave up after 6 attempts)' },
      },
      1_500,
    );
    await writeHeartbeat({
      role: 'gateway',
      id: 'gateway-a',
      address: '10.1.0.9:8080',
      revision: latest,
      models: {},
    });
    // Another deployment's node on the same Redis is not ours.
    await publish(
      redis,
      `${isolation.keyPrefix}-other`,
      { role: 'worker', id: 'stranger', address: 'x', revision: 1, models: {} },
      30_000,
    );

    const response = await registry.admin.get<FleetStatusView>('/v1/status');
    expect(response.status).toBe(200);
    expect(response.body.revision).toBe(latest);
    expect(response.body.note).toBeUndefined();
    expect(response.body.nodes).toEqual([
      {
        role: 'gateway',
        id: 'gateway-a',
        address: '10.1.0.9:8080',
        revision: latest,
        lag: 0,
        models: {},
        reasons: {},
        lastSeenMs: expect.any(Number) as number,
      },
      {
        role: 'worker',
        id: 'worker-a',
        address: '10.1.0.7:8001',
        workerGroup: 'default',
        revision: latest - 2,
        lag: 2,
        models: { 'sst2:1': 'READY', 'sst2:2': 'LOADING', 'sst2:3': 'FAILED' },
        reasons: { 'sst2:3': 'no such file (gave up after 6 attempts)' },
        lastSeenMs: expect.any(Number) as number,
      },
    ]);
    const worker = response.body.nodes.find((node) => node.role === 'worker');
    expect(worker?.lastSeenMs).toBeGreaterThanOrEqual(1_500);
    const others = await redis.keys(`${isolation.keyPrefix}-other:*`);
    if (others.length > 0) await redis.del(...others);
  });

  it('updates modelgate_nodes{role} on each read', async () => {
    await registry.admin.get('/v1/status');
    const metrics = await (await fetch(`${registry.url}/metrics`)).text();
    expect(metrics).toMatch(/^modelgate_nodes\{role="worker"[^}]*\} 1$/m);
    expect(metrics).toMatch(/^modelgate_nodes\{role="gateway"[^}]*\} 1$/m);
    expect(metrics).toMatch(/^modelgate_nodes\{role="registry"[^}]*\} 0$/m);
  });

  it('is readable with a viewer token and refused without one', async () => {
    const created = await registry.admin.post<{ token: string }>('/v1/tokens', {
      name: 'status-viewer',
      role: 'viewer',
    });
    expect((await registry.client(created.body.token).get('/v1/status')).status).toBe(200);
    const anonymous = await registry.client().get<ApiErrorBody>('/v1/status');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHENTICATED');
  });

  it('without Redis, lists the nodes that report over HTTP and drops one that stops', async () => {
    const standalone = await startRegistryInProcess(withoutRedis(isolation.env));
    const publisher = new HeartbeatPublisher({
      registry: { url: standalone.url, token: ADMIN_TOKEN },
      ttlMs: 30_000,
      describe: () => ({
        role: 'worker',
        id: 'http-worker',
        address: '127.0.0.1:8001',
        workerGroup: 'default',
        revision: 2,
        models: { 'm:1': 'READY' },
      }),
    });
    try {
      const before = await standalone.admin.get<FleetStatusView>('/v1/status');
      expect(before.body.nodes).toEqual([]);
      expect(before.body.note).toBeUndefined();
      await publisher.beat();
      const response = await standalone.admin.get<FleetStatusView>('/v1/status');
      expect(response.body.nodes.map((node) => [node.role, node.id, node.address, node.models])).toEqual([
        ['worker', 'http-worker', '127.0.0.1:8001', { 'm:1': 'READY' }],
      ]);
      await publisher.stop();
      expect((await standalone.admin.get<FleetStatusView>('/v1/status')).body.nodes).toEqual([]);
    } finally {
      await publisher.stop();
      await standalone.stop();
    }
  });

  it('takes a node whose Redis write fails over HTTP, beside the nodes Redis has', async () => {
    const publisher = new HeartbeatPublisher({
      redisUrl: `redis://127.0.0.1:${await freePort()}`, // nothing listens: every write fails
      registry: { url: registry.url, token: ADMIN_TOKEN },
      ttlMs: 30_000,
      describe: () => ({
        role: 'gateway',
        id: 'cut-off-gateway',
        address: '10.9.9.9:8080',
        revision: null,
        models: {},
      }),
    });
    try {
      await publisher.beat();
      const ids = (await registry.admin.get<FleetStatusView>('/v1/status')).body.nodes.map((node) => node.id);
      expect(ids).toContain('cut-off-gateway');
      expect(ids).toContain('worker-a'); // from Redis, written by the first test
    } finally {
      await publisher.stop();
    }
  });

  it('refuses a malformed heartbeat with the field named', async () => {
    const response = await registry.admin.post<ApiErrorBody>('/v1/nodes/heartbeat', {
      report: { role: 'toaster' },
      ttlMs: 5,
    });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain('report.role');
    expect(response.body.error.message).toContain('ttlMs');
  });
});
