import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '../src/database/migration-runner.js';
import { loadRegistryConfig, type RegistryConfig } from '../src/registry.config.js';
import { type Isolation, isolate } from './support/registry-harness.js';

const TABLES = [
  'api_tokens',
  'audit_log',
  'config_events',
  'endpoint_routes',
  'endpoints',
  'model_version_policies',
  'models',
  'rollouts',
];

const ALL_MIGRATIONS = ['InitialSchema1763683200000', 'ModelVersionPolicies1795348800000'];

describe('migrations', () => {
  let isolation: Isolation;
  let config: RegistryConfig;

  const tables = async (): Promise<string[]> =>
    (
      await isolation.sql<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name <> 'migrations'
         ORDER BY table_name`,
        [isolation.schema],
      )
    ).map((row) => row.table_name);

  beforeAll(async () => {
    isolation = await isolate({ migrate: false });
    config = loadRegistryConfig(isolation.env);
  });

  afterAll(async () => {
    await isolation?.dispose();
  });

  it('create the schema and every table on an empty database', async () => {
    const outcome = await runMigrations(config, 'up');
    expect(outcome.applied).toEqual(ALL_MIGRATIONS);
    expect(await tables()).toEqual(TABLES);
  });

  it('do nothing when run again', async () => {
    expect(await runMigrations(config, 'up')).toEqual({ applied: [], reverted: [] });
    expect(await tables()).toEqual(TABLES);
  });

  it('enforce the schema: unique name:version, known statuses, routed models cannot be deleted', async () => {
    const insertModel = (name: string, version: number, status = 'PENDING') =>
      isolation.sql<{ id: string }>(
        `INSERT INTO models (name, version, task, artifact_uri, artifact_sha256, status)
         VALUES ($1, $2, 'raw', 'file:///m.onnx', repeat('a', 64), $3) RETURNING id`,
        [name, version, status],
      );
    const [model] = await insertModel('m', 1);
    await expect(insertModel('m', 1)).rejects.toThrow(/models_name_version_key/);
    await expect(insertModel('m', 2, 'BROKEN')).rejects.toThrow(/check constraint/);
    const [endpoint] = await isolation.sql<{ id: string }>(
      `INSERT INTO endpoints (name, task) VALUES ('e', 'raw') RETURNING id`,
    );
    await isolation.sql(
      `INSERT INTO endpoint_routes (endpoint_id, model_id, weight, role) VALUES ($1, $2, 100, 'primary')`,
      [endpoint!.id, model!.id],
    );
    await expect(isolation.sql(`DELETE FROM models WHERE id = $1`, [model!.id])).rejects.toThrow(
      /foreign key/,
    );
    await isolation.sql(`DELETE FROM endpoints`);
    await isolation.sql(`DELETE FROM models`);
  });

  it('enforce the version policy kinds', async () => {
    await isolation.sql(
      `INSERT INTO model_version_policies (model_name, policy) VALUES ('m', '{"kind":"all"}')`,
    );
    await expect(
      isolation.sql(
        `INSERT INTO model_version_policies (model_name, policy) VALUES ('n', '{"kind":"newest"}')`,
      ),
    ).rejects.toThrow(/check constraint/);
    await isolation.sql(`DELETE FROM model_version_policies`);
  });

  it('revert the last migration with down, and apply it again', async () => {
    expect((await runMigrations(config, 'down')).reverted).toEqual(['ModelVersionPolicies1795348800000']);
    expect(await tables()).toEqual(TABLES.filter((table) => table !== 'model_version_policies'));
    expect((await runMigrations(config, 'up')).applied).toEqual(['ModelVersionPolicies1795348800000']);
    expect(await tables()).toEqual(TABLES);
  });
});
