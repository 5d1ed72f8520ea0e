// A registry database restored from a backup (real pg_dump and pg_restore on the test's schema)
// counts revisions from below what nodes have applied. A node following it (the config-sync source
// gateways and workers run, on real Redis) ignores revisions at or below its own, so before the
// fix it kept the lost config, and missed every later change until the count caught up.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RegistryConfigSource } from '@modelgate/config-sync';
import { type ConfigSnapshot } from '@modelgate/contracts';
import {
  waitFor,
  fixtureRegistration,
  waitForPrepared,
  ADMIN_TOKEN,
  type RunningRegistry,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  withoutRedis,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Isolation, isolate, startRegistryInProcess } from './support/registry-harness.js';

const run = promisify(execFile);

/** Several relay passes and reconcile polls (200 ms each here), with room for a slow machine. */
const settled = { timeoutMs: 20_000, describe: () => 'the node never applied the restored config' };

/** A node's view: the last snapshot its config source applied. */
function follow(registry: RunningRegistry, keyPrefix: string, redis: boolean) {
  const applied: ConfigSnapshot[] = [];
  const source = new RegistryConfigSource({
    registryUrl: registry.url,
    token: ADMIN_TOKEN,
    ...(redis ? { redisUrl: TEST_REDIS_URL, keyPrefix, reconcileIntervalMs: 60_000 } : {}),
    ...(redis ? {} : { reconcileIntervalMs: 200 }),
  });
  const started = source.start((snapshot) => {
    applied.push(snapshot);
    return Promise.resolve();
  });
  return {
    started,
    last: (): ConfigSnapshot | undefined => applied.at(-1),
    endpoints: (): string[] => (applied.at(-1)?.endpoints ?? []).map((e) => e.name).sort(),
    stop: () => source.stop(),
  };
}

describe('a registry database restored from a backup', () => {
  let isolation: Isolation;
  let registry: RunningRegistry;

  const dump = async (file: string): Promise<void> => {
    await run('pg_dump', ['--dbname', TEST_DATABASE_URL, '--schema', isolation.schema, '-Fc', '-f', file]);
  };
  const restore = async (file: string): Promise<void> => {
    await isolation.sql(`DROP SCHEMA "${isolation.schema}" CASCADE`);
    // One transaction: a registry still running sees no schema, then all of the backup. Restored
    // piece by piece, its revision raise could land between the restored rows and their sequence's
    // value, and take an audit id the backup's rows hold (the primary key then failed to build).
    await run('pg_restore', ['--single-transaction', '--dbname', TEST_DATABASE_URL, file]);
  };
  const createEndpoint = async (name: string): Promise<void> => {
    const created = await registry.admin.post('/v1/endpoints', {
      name,
      task: 'text-classification',
      model: 'sst2:1',
    });
    expect(created.status).toBe(201);
  };
  const latestRevision = async (): Promise<number> =>
    Number((await isolation.sql<{ r: string }>('SELECT max(revision) AS r FROM config_events'))[0]?.r);

  beforeAll(async () => {
    isolation = await isolate();
    registry = await startRegistryInProcess(isolation.env);
    const body = await fixtureRegistration(
      'tiny-bert-sst2',
      'sst2',
      'text-classification',
      join(isolation.dir, 'files'),
    );
    expect((await registry.admin.post('/v1/models', body)).status).toBe(202);
    expect((await waitForPrepared(registry.admin, 'sst2:1')).status).toBe('READY');
    await createEndpoint('kept');
  });

  afterAll(async () => {
    await registry?.stop();
    await isolation?.dispose();
  });

  it('raises its revision past what nodes applied, so they take the restored config and later changes (Redis)', async () => {
    const backup = join(isolation.dir, 'before-lost.dump');
    await dump(backup);
    await createEndpoint('lost');
    const node = follow(registry, isolation.keyPrefix, true);
    try {
      await node.started;
      const before = node.last()!;
      expect(node.endpoints()).toEqual(['kept', 'lost']);

      // As an operator restores: the registry stopped, the schema replaced by the backup's.
      await registry.stop();
      await restore(backup);
      expect(await latestRevision()).toBeLessThan(before.revision);
      // Where it was: the node follows the same URL.
      registry = await startRegistryInProcess(isolation.env, undefined, Number(new URL(registry.url).port));

      // Announced past the node's revision: it applies the database's config ('lost' is gone).
      await waitFor(() => node.endpoints().join() === 'kept', settled);
      expect(node.last()!.revision).toBeGreaterThan(before.revision);
      const raised = await isolation.sql<{ actor: string; action: string; details: Record<string, number> }>(
        "SELECT actor, action, details FROM audit_log WHERE action = 'config.revision-raise'",
      );
      expect(raised).toEqual([
        {
          actor: 'system:outbox',
          action: 'config.revision-raise',
          details: { databaseRevision: expect.any(Number) as number, highWater: before.revision },
        },
      ]);

      // The next change reaches the node as any change does.
      await createEndpoint('after');
      await waitFor(() => node.endpoints().join() === 'after,kept', settled);
    } finally {
      await node.stop();
    }
  });

  it('catches a restore under a running registry without Redis, from the revisions it served', async () => {
    await registry.stop();
    const env = withoutRedis(isolation.env);
    registry = await startRegistryInProcess(env);
    const backup = join(isolation.dir, 'before-second-lost.dump');
    await dump(backup);
    await createEndpoint('second-lost');
    const node = follow(registry, isolation.keyPrefix, false);
    try {
      await node.started;
      const before = node.last()!;
      expect(node.endpoints()).toContain('second-lost');

      // Restored in place (a point-in-time recovery): the registry keeps running, and reconnects.
      await restore(backup);
      await waitFor(() => !node.endpoints().includes('second-lost'), settled);
      expect(node.last()!.revision).toBeGreaterThan(before.revision);
      expect(node.endpoints()).toEqual(['after', 'kept']);
    } finally {
      await node.stop();
    }
  });
});
