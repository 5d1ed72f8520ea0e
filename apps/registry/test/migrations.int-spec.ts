import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '../src/database/migration-runner.js';
import { loadRegistryConfig, type RegistryConfig } from '../src/registry.config.js';
import { ALL_MIGRATIONS, migrationsFrom, revertAfter } from './support/migration-names.js';
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

  it('let a model wait for its hf:// import without artifact, but never be READY so', async () => {
    let version = 0;
    const insert = (artifact: string | null, status: string, source: string | null = 'hf://org/m@main') =>
      isolation.sql(
        `INSERT INTO models (name, version, task, artifact_uri, artifact_sha256, source_uri, status)
         VALUES ('h', $1, 'raw', $2, $3, $4, $5)`,
        [(version += 1), artifact, artifact === null ? null : 'a'.repeat(64), source, status],
      );
    await insert(null, 'PENDING');
    await insert('file:///m.onnx', 'READY');
    await expect(insert(null, 'READY')).rejects.toThrow(/models_ready_has_artifact/);
    await expect(insert(null, 'PENDING', null)).rejects.toThrow(/models_artifact_or_source/);
    await isolation.sql(`DELETE FROM models`);
  });

  it('keep one rollout in progress per endpoint, and let the models of a rollout be deleted', async () => {
    const [model] = await isolation.sql<{ id: string }>(
      `INSERT INTO models (name, version, task, artifact_uri, artifact_sha256)
       VALUES ('r', 1, 'raw', 'file:///m.onnx', repeat('a', 64)) RETURNING id`,
    );
    const [endpoint] = await isolation.sql<{ id: string }>(
      `INSERT INTO endpoints (name, task, preprocessing, postprocessing) VALUES ('r', 'raw', '{}', '{}') RETURNING id`,
    );
    const insertRollout = (state: string) =>
      isolation.sql(
        `INSERT INTO rollouts (endpoint_id, from_model_id, to_model_id, to_model, interval_seconds, state)
         VALUES ($1, $2, $2, 'r:1', 60, $3)`,
        [endpoint!.id, model!.id, state],
      );
    await insertRollout('COMPLETED');
    await insertRollout('RUNNING');
    await expect(insertRollout('PAUSED')).rejects.toThrow(/rollouts_one_active_per_endpoint/);
    await isolation.sql(`DELETE FROM models WHERE id = $1`, [model!.id]);
    const kept = await isolation.sql<{ to_model: string; to_model_id: string | null }>(
      `SELECT to_model, to_model_id FROM rollouts`,
    );
    expect(kept).toEqual([
      { to_model: 'r:1', to_model_id: null },
      { to_model: 'r:1', to_model_id: null },
    ]);
    await isolation.sql(`DELETE FROM endpoints`);
  });

  it('accept the text tasks of the second wave, and refuse to revert them while a model has one', async () => {
    await isolation.sql(
      `INSERT INTO models (name, version, task, artifact_uri, artifact_sha256)
       VALUES ('qa', 1, 'question-answering', 'file:///m.onnx', repeat('a', 64))`,
    );
    await expect(
      isolation.sql(
        `INSERT INTO models (name, version, task, artifact_uri, artifact_sha256)
         VALUES ('tts', 1, 'text-to-speech', 'file:///m.onnx', repeat('a', 64))`,
      ),
    ).rejects.toThrow(/models_task_check/);
    const index = ALL_MIGRATIONS.indexOf('TextTasks1795359600000');
    for (let n = ALL_MIGRATIONS.length - 1; n > index; n -= 1) await runMigrations(config, 'down');
    await expect(runMigrations(config, 'down')).rejects.toThrow(
      /1 model version\(s\) or endpoint\(s\) are of task question-answering, token-classification, text-ranking/,
    );
    await isolation.sql(`DELETE FROM models`);
    expect((await runMigrations(config, 'up')).applied).toEqual(ALL_MIGRATIONS.slice(index + 1));
  });

  it('accept text-generation models and endpoints, and refuse to revert while one has the task', async () => {
    await isolation.sql(
      `INSERT INTO models (name, version, task, artifact_uri, artifact_sha256)
       VALUES ('gen', 1, 'text-generation', 'file:///m.onnx', repeat('a', 64))`,
    );
    await isolation.sql(`INSERT INTO endpoints (name, task) VALUES ('gen', 'text-generation')`);
    await revertAfter(config, 'TextGenerationTask1795363200000');
    await expect(runMigrations(config, 'down')).rejects.toThrow(
      /cannot revert TextGenerationTask1795363200000: 2 model version\(s\) or endpoint\(s\) are of task text-generation/,
    );
    await isolation.sql(`DELETE FROM endpoints`);
    await isolation.sql(`DELETE FROM models`);
    expect((await runMigrations(config, 'down')).reverted).toEqual(['TextGenerationTask1795363200000']);
    await expect(
      isolation.sql(`INSERT INTO endpoints (name, task) VALUES ('gen', 'text-generation')`),
    ).rejects.toThrow(/endpoints_task_check/);
    expect((await runMigrations(config, 'up')).applied).toEqual(
      migrationsFrom('TextGenerationTask1795363200000'),
    );
  });

  it('accept image-classification models and endpoints, and refuse to revert while one has the task', async () => {
    await isolation.sql(
      `INSERT INTO models (name, version, task, artifact_uri, artifact_sha256)
       VALUES ('vit', 1, 'image-classification', 'file:///m.onnx', repeat('a', 64))`,
    );
    await isolation.sql(`INSERT INTO endpoints (name, task) VALUES ('vit', 'image-classification')`);
    await revertAfter(config, 'ImageClassificationTask1795366800000');
    await expect(runMigrations(config, 'down')).rejects.toThrow(
      /cannot revert ImageClassificationTask1795366800000: 2 model version\(s\) or endpoint\(s\) are of task image-classification/,
    );
    await isolation.sql(`DELETE FROM endpoints`);
    await isolation.sql(`DELETE FROM models`);
    expect((await runMigrations(config, 'down')).reverted).toEqual(['ImageClassificationTask1795366800000']);
    await expect(
      isolation.sql(
        `INSERT INTO models (name, version, task, artifact_uri, artifact_sha256)
         VALUES ('vit', 1, 'image-classification', 'file:///m.onnx', repeat('a', 64))`,
      ),
    ).rejects.toThrow(/models_task_check/);
    expect((await runMigrations(config, 'up')).applied).toEqual(
      migrationsFrom('ImageClassificationTask1795366800000'),
    );
  });

  it('accept image-to-text models with their encoder, enforce the encoder columns, and refuse to revert while one has the task', async () => {
    const insert = (task: string, encoder: string | null, status = 'PENDING') =>
      isolation.sql(
        `INSERT INTO models (name, version, task, artifact_uri, artifact_sha256, encoder_uri, encoder_sha256, status)
         VALUES ('cap', $1, $2, 'file:///d.onnx', repeat('a', 64), $3, $4, $5)`,
        [
          Math.floor(Math.random() * 1e6) + 1,
          task,
          encoder,
          encoder === null ? null : 'b'.repeat(64),
          status,
        ],
      );
    await revertAfter(config, 'ImageToTextTask1795370400000');
    await insert('image-to-text', 'file:///e.onnx', 'READY');
    await isolation.sql(`INSERT INTO endpoints (name, task) VALUES ('cap', 'image-to-text')`);
    await expect(insert('text-classification', 'file:///e.onnx')).rejects.toThrow(/models_encoder_task/);
    await expect(insert('image-to-text', null, 'READY')).rejects.toThrow(/models_ready_has_encoder/);
    await expect(
      isolation.sql(
        `INSERT INTO models (name, version, task, artifact_uri, artifact_sha256, encoder_uri)
         VALUES ('cap', 999999999, 'image-to-text', 'file:///d.onnx', repeat('a', 64), 'file:///e.onnx')`,
      ),
    ).rejects.toThrow(/models_encoder_pair/);
    await expect(runMigrations(config, 'down')).rejects.toThrow(
      /cannot revert ImageToTextTask1795370400000: 2 model version\(s\) or endpoint\(s\) are of task image-to-text/,
    );
    await isolation.sql(`DELETE FROM endpoints`);
    await isolation.sql(`DELETE FROM models`);
    expect((await runMigrations(config, 'down')).reverted).toEqual(['ImageToTextTask1795370400000']);
    await expect(
      isolation.sql(
        `INSERT INTO models (name, version, task, artifact_uri, artifact_sha256)
         VALUES ('cap', 1, 'image-to-text', 'file:///d.onnx', repeat('a', 64))`,
      ),
    ).rejects.toThrow(/models_task_check/);
    expect((await runMigrations(config, 'up')).applied).toEqual(
      migrationsFrom('ImageToTextTask1795370400000'),
    );
  });

  it('revert the last migration with down, and apply it again', async () => {
    const last = ALL_MIGRATIONS.at(-1);
    expect((await runMigrations(config, 'down')).reverted).toEqual([last]);
    expect(await tables()).toEqual(TABLES);
    expect((await runMigrations(config, 'up')).applied).toEqual([last]);
    expect(await tables()).toEqual(TABLES);
  });

  it('revert the version policies table when reverting past it', async () => {
    const index = ALL_MIGRATIONS.indexOf('ModelVersionPolicies1795348800000');
    for (let n = ALL_MIGRATIONS.length - 1; n > index; n -= 1) await runMigrations(config, 'down');
    expect((await runMigrations(config, 'down')).reverted).toEqual(['ModelVersionPolicies1795348800000']);
    expect(await tables()).toEqual(TABLES.filter((table) => table !== 'model_version_policies'));
    expect((await runMigrations(config, 'up')).applied).toEqual(ALL_MIGRATIONS.slice(index));
    expect(await tables()).toEqual(TABLES);
  });

  it('refuse to revert the sources and external data while a model needs them', async () => {
    await isolation.sql(
      `INSERT INTO models (name, version, task, artifact_uri, artifact_sha256, external_data)
       VALUES ('x', 1, 'raw', 'file:///m.onnx', repeat('a', 64), $1)`,
      [JSON.stringify([{ name: 'model.onnx_data', uri: 'file:///m.onnx_data', sha256: 'b'.repeat(64) }])],
    );
    const index = ALL_MIGRATIONS.indexOf('ModelSourcesAndExternalData1795352400000');
    for (let n = ALL_MIGRATIONS.length - 1; n > index; n -= 1) await runMigrations(config, 'down');
    await expect(runMigrations(config, 'down')).rejects.toThrow(
      /1 model version\(s\) are not yet imported or have external data/,
    );
    await isolation.sql(`DELETE FROM models`);
    expect((await runMigrations(config, 'up')).applied).toEqual(ALL_MIGRATIONS.slice(index + 1));
  });

  it('give every existing endpoint no decoding defaults of its own, and take the column back on down', async () => {
    await revertAfter(config, 'InertQueueDelays1795381200000');
    await isolation.sql(
      `INSERT INTO endpoints (id, name, task, preprocessing, postprocessing)
       VALUES (gen_random_uuid(), 'old', 'text-generation', '{}'::jsonb, '{}'::jsonb)`,
    );
    expect((await runMigrations(config, 'up')).applied).toEqual(
      migrationsFrom('EndpointGenerationDefaults1795384800000'),
    );
    expect(await isolation.sql(`SELECT name, generation FROM endpoints`)).toEqual([
      { name: 'old', generation: {} },
    ]);
    await revertAfter(config, 'InertQueueDelays1795381200000');
    const columns = await isolation.sql(
      `SELECT column_name FROM information_schema.columns
        WHERE table_schema = $1 AND table_name = 'endpoints' AND column_name = 'generation'`,
      [isolation.schema],
    );
    expect(columns).toEqual([]);
    expect((await runMigrations(config, 'up')).applied).toEqual(
      migrationsFrom('EndpointGenerationDefaults1795384800000'),
    );
    await isolation.sql(`DELETE FROM endpoints`);
  });
});
