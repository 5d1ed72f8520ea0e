import { type ApiErrorBody, parseConfigSnapshot } from '@modelgate/contracts';
import {
  metricValue,
  waitFor,
  fixtureRegistration,
  waitForPrepared,
  type RunningRegistry,
  startRegistryProcess,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSubscriber } from './support/config-subscriber.js';
import { type Isolation, isolate } from './support/registry-harness.js';

interface EventRow {
  revision: string;
  summary: string;
  published_at: Date | null;
}

/** modelgate_registry_config_revision as `registry` reports it. */
async function configRevisionGauge(registry: Pick<RunningRegistry, 'client'>): Promise<number> {
  const metrics = await registry.client().get<string>('/metrics');
  return metricValue(metrics.body, 'modelgate_registry_config_revision');
}

describe('config outbox', () => {
  let isolation: Isolation;
  let subscriber: ConfigSubscriber;

  const events = (): Promise<EventRow[]> =>
    isolation.sql<EventRow>('SELECT revision, summary, published_at FROM config_events ORDER BY revision');

  beforeAll(async () => {
    isolation = await isolate();
    subscriber = await ConfigSubscriber.start(isolation.keyPrefix);
    // Two models to route between: one READY, one FAILED.
    const registry = await startRegistryProcess(isolation.env);
    try {
      const sst2 = await fixtureRegistration(
        'tiny-bert-sst2',
        'sst2',
        'text-classification',
        `${isolation.dir}/files`,
      );
      await registry.admin.post('/v1/models', sst2);
      await registry.admin.post('/v1/models', {
        ...sst2,
        name: 'broken',
        artifact: { ...(sst2.artifact as object), sha256: '0'.repeat(64) },
      });
      expect((await waitForPrepared(registry.admin, 'sst2:1')).status).toBe('READY');
      expect((await waitForPrepared(registry.admin, 'broken:1')).status).toBe('FAILED');
      expect(
        (
          await registry.admin.post('/v1/endpoints', {
            name: 'sentiment',
            task: 'text-classification',
            model: 'sst2:1',
          })
        ).status,
      ).toBe(201);
    } finally {
      await registry.stop();
    }
  });

  afterAll(async () => {
    subscriber?.close();
    await isolation?.dispose();
  });

  it('announces every committed change on <prefix>:config and marks it published', async () => {
    const rows = await events();
    expect(rows.map((row) => row.summary).sort()).toEqual([
      'endpoint.create endpoint:sentiment',
      'model.ready model:sst2:1',
      'model.register model:broken:1',
      'model.register model:sst2:1',
    ]);
    expect(rows.every((row) => row.published_at !== null)).toBe(true);
    expect(subscriber.revisions.at(-1)).toBe(Number(rows.at(-1)!.revision));
  });

  it('reports the latest committed revision on a restarted registry with nothing to relay', async () => {
    const latest = Number((await events()).at(-1)!.revision);
    const registry = await startRegistryProcess(isolation.env);
    try {
      await waitFor(async () => (await configRevisionGauge(registry)) === latest, { timeoutMs: 5_000 });
      expect(subscriber.revisions.at(-1)).toBe(latest);
    } finally {
      await registry.stop();
    }
  });

  it('publishes nothing for a mutation rolled back inside its transaction', async () => {
    const registry = await startRegistryProcess(isolation.env);
    try {
      const before = await events();
      const heard = subscriber.revisions.length;
      const refused = await registry.admin.put<ApiErrorBody>('/v1/endpoints/sentiment/routes', {
        routes: [
          { model: 'sst2:1', weight: 50 },
          { model: 'broken:1', weight: 50 },
        ],
      });
      expect(refused.status).toBe(409);
      expect(refused.body.error.message).toContain('model broken:1 is FAILED');
      expect(await events()).toEqual(before);
      expect(parseConfigSnapshot((await registry.admin.get('/v1/config/snapshot')).body).revision).toBe(
        Number(before.at(-1)!.revision),
      );
      // A committed change after it: announcements go out in commit order, so once its revision
      // is heard, anything the refused one had announced would have been heard before it.
      expect((await registry.admin.patch('/v1/endpoints/sentiment', { timeoutMs: 4321 })).status).toBe(200);
      const [committed, ...more] = (await events()).slice(before.length);
      expect(more).toEqual([]);
      expect(committed?.summary).toBe('endpoint.update endpoint:sentiment');
      await waitFor(() => subscriber.revisions.includes(Number(committed!.revision)));
      expect(subscriber.revisions.slice(heard)).toEqual([Number(committed!.revision)]);
    } finally {
      await registry.stop();
    }
  });

  it('loses nothing when the registry dies between commit and announce: the relay announces after restart', async () => {
    const crashing = await startRegistryProcess({
      ...isolation.env,
      REGISTRY_TEST_CRASH_AFTER_COMMIT: 'true',
    });
    const heard = subscriber.revisions.length;
    const request = crashing.admin.patch('/v1/endpoints/sentiment', { timeoutMs: 1234 });
    await expect(request).rejects.toThrow();
    expect(await crashing.process.exited).toBe(1);

    const [pending] = (await events()).filter((row) => row.published_at === null);
    expect(pending?.summary).toBe('endpoint.update endpoint:sentiment');
    const revision = Number(pending!.revision);

    const restarted = await startRegistryProcess(isolation.env);
    try {
      await waitFor(() => subscriber.revisions.includes(revision), { timeoutMs: 10_000 });
      // Heard once, from the restarted registry's relay: the crashed one announced nothing.
      expect(subscriber.revisions.slice(heard)).toEqual([revision]);
      expect(await configRevisionGauge(restarted)).toBe(revision);
      await waitFor(async () => (await events()).every((row) => row.published_at !== null), {
        timeoutMs: 5_000,
      });
      const snapshot = parseConfigSnapshot((await restarted.admin.get('/v1/config/snapshot')).body);
      expect(snapshot.revision).toBe(revision);
      expect(snapshot.endpoints[0]?.timeoutMs).toBe(1234);
    } finally {
      await restarted.stop();
    }
  });
});
