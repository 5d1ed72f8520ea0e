// Migrations that rewrite stored rows holding values that were stored and never applied (the
// schemas the nodes parse snapshots with now refuse them) to values that act the same way, on a
// real Postgres: each test reverts to just before its migration, stores such rows and applies it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '../src/database/migration-runner.js';
import { loadRegistryConfig, type RegistryConfig } from '../src/registry.config.js';
import { ALL_MIGRATIONS, migrationsFrom, revertAfter } from './support/migration-names.js';
import { type Isolation, isolate } from './support/registry-harness.js';

describe('migrations that rewrite values never applied', () => {
  let isolation: Isolation;
  let config: RegistryConfig;

  beforeAll(async () => {
    isolation = await isolate({ migrate: false });
    config = loadRegistryConfig(isolation.env);
    expect((await runMigrations(config, 'up')).applied).toEqual(ALL_MIGRATIONS);
  });

  afterAll(async () => {
    await isolation?.dispose();
  });

  it('give image-classification endpoints back the text options they never applied, at their defaults', async () => {
    await revertAfter(config, 'ImageToTextTask1795370400000');
    expect((await runMigrations(config, 'down')).reverted).toEqual(['ImageToTextTask1795370400000']);
    await isolation.sql(
      `INSERT INTO endpoints (name, task, preprocessing) VALUES ('vit', 'image-classification', $1)`,
      [
        JSON.stringify({
          maxInputChars: 100,
          maxTokens: 64,
          truncation: false,
          maxBatchItems: 2,
          maxImageBytes: 4096,
        }),
      ],
    );
    expect((await runMigrations(config, 'up')).applied).toEqual(
      migrationsFrom('ImageToTextTask1795370400000'),
    );
    const rows = await isolation.sql<{ preprocessing: unknown }>(
      `SELECT preprocessing FROM endpoints WHERE name = 'vit'`,
    );
    expect(rows[0]?.preprocessing).toEqual({
      maxInputChars: 20000,
      truncation: true,
      maxBatchItems: 64,
      maxImageBytes: 4096,
    });
    await isolation.sql(`DELETE FROM endpoints`);
  });

  it('give endpoints and models the values that act as the ones they stored and never applied', async () => {
    await revertAfter(config, 'ImageToTextTask1795370400000');
    const endpoint = (name: string, task: string, preprocessing: object) =>
      isolation.sql(`INSERT INTO endpoints (name, task, preprocessing) VALUES ($1, $2, $3)`, [
        name,
        task,
        JSON.stringify(preprocessing),
      ]);
    await endpoint('qa', 'question-answering', { truncation: false, maxTokens: 512, maxInputChars: 100 });
    await endpoint('qa-ok', 'question-answering', { maxTokens: 256 });
    await endpoint('gen', 'text-generation', { truncation: false });
    await endpoint('gen-cut', 'text-generation', { truncation: false, maxTokens: 64 });
    await endpoint('cls', 'text-classification', { truncation: false });
    const model = (name: string, task: string, batching: object) =>
      isolation.sql(
        `INSERT INTO models (name, version, task, artifact_uri, artifact_sha256, batching)
         VALUES ($1, 1, $2, 'file:///m.onnx', repeat('a', 64), $3)`,
        [name, task, JSON.stringify(batching)],
      );
    await model('vit', 'image-classification', { maxBatchSize: 16, maxPaddingRatio: 2 });
    await model('bert', 'text-classification', { maxPaddingRatio: 2 });
    expect((await runMigrations(config, 'up')).applied).toEqual(
      migrationsFrom('OptionsThatNeverApplied1795374000000'),
    );
    const preprocessing = Object.fromEntries(
      (
        await isolation.sql<{ name: string; preprocessing: unknown }>(
          `SELECT name, preprocessing FROM endpoints ORDER BY name`,
        )
      ).map((row) => [row.name, row.preprocessing]),
    );
    expect(preprocessing).toEqual({
      qa: { truncation: true, maxTokens: 384, maxInputChars: 100 },
      'qa-ok': { maxTokens: 256 },
      gen: { truncation: true },
      'gen-cut': { truncation: false, maxTokens: 64 },
      cls: { truncation: false },
    });
    const batching = await isolation.sql<{ name: string; batching: unknown }>(
      `SELECT name, batching FROM models ORDER BY name`,
    );
    expect(batching).toEqual([
      { name: 'bert', batching: { maxPaddingRatio: 2 } },
      { name: 'vit', batching: { maxBatchSize: 16, maxPaddingRatio: 1.15 } },
    ]);
    await isolation.sql(`DELETE FROM endpoints`);
    await isolation.sql(`DELETE FROM models`);
  });

  it('give decoders without position_ids the maxBatchSize they decode with, 1', async () => {
    await revertAfter(config, 'OptionsThatNeverApplied1795374000000');
    const inputs = (...names: string[]) => names.map((name) => ({ name, datatype: 'INT64', dims: [-1, -1] }));
    const model = (name: string, task: string, batching: object, io: object | null) =>
      isolation.sql(
        `INSERT INTO models (name, version, task, artifact_uri, artifact_sha256, batching, io)
         VALUES ($1, 1, $2, 'file:///m.onnx', repeat('a', 64), $3, $4)`,
        [name, task, JSON.stringify(batching), io === null ? null : JSON.stringify(io)],
      );
    const implicit = { inputs: inputs('input_ids', 'attention_mask'), outputs: [] };
    const explicit = { inputs: inputs('input_ids', 'attention_mask', 'position_ids'), outputs: [] };
    await model('implicit-4', 'text-generation', { maxBatchSize: 4, maxQueueSize: 8 }, implicit);
    await model('implicit-default', 'text-generation', { maxBatchSize: 32 }, implicit);
    await model('explicit-4', 'text-generation', { maxBatchSize: 4 }, explicit);
    await model('unprepared-4', 'text-generation', { maxBatchSize: 4 }, null);
    await model('bert-4', 'text-classification', { maxBatchSize: 4 }, implicit);
    expect((await runMigrations(config, 'up')).applied).toEqual(
      migrationsFrom('DecodersWithoutPositionIds1795377600000'),
    );
    expect(await isolation.sql(`SELECT name, batching FROM models ORDER BY name`)).toEqual([
      { name: 'bert-4', batching: { maxBatchSize: 4 } },
      { name: 'explicit-4', batching: { maxBatchSize: 4 } },
      { name: 'implicit-4', batching: { maxBatchSize: 1, maxQueueSize: 8 } },
      // ImplicitMaxBatchSize, applied after, takes the 32 the old schema stored for everyone.
      { name: 'implicit-default', batching: {} },
      { name: 'unprepared-4', batching: { maxBatchSize: 4 } },
    ]);
    await isolation.sql(`DELETE FROM models`);
  });

  it('take from encoder models the queue delay that could never make a batch wait', async () => {
    await revertAfter(config, 'DecodersWithoutPositionIds1795377600000');
    const model = (name: string, task: string, batching: object, runtime: object) =>
      isolation.sql(
        `INSERT INTO models (name, version, task, artifact_uri, artifact_sha256, batching, runtime)
         VALUES ($1, 1, $2, 'file:///m.onnx', repeat('a', 64), $3, $4)`,
        [name, task, JSON.stringify(batching), JSON.stringify(runtime)],
      );
    const preferred = { maxQueueDelayMicros: 500, preferredBatchSizes: [4] };
    await model(
      'alone',
      'text-classification',
      { maxQueueDelayMicros: 500, maxBatchSize: 8 },
      { instances: 2 },
    );
    await model('one-instance', 'feature-extraction', preferred, {});
    await model(
      'empty-sizes',
      'raw',
      { maxQueueDelayMicros: 500, preferredBatchSizes: [] },
      { instances: 2 },
    );
    await model('waits', 'text-classification', preferred, { instances: 2 });
    await model('zero', 'text-classification', { maxQueueDelayMicros: 0 }, {});
    await model('default', 'text-classification', { maxQueueDelayMicros: 2000 }, {});
    await model('gen', 'text-generation', { maxQueueDelayMicros: 500 }, {});
    expect((await runMigrations(config, 'up')).applied).toEqual(
      migrationsFrom('InertQueueDelays1795381200000'),
    );
    expect(await isolation.sql(`SELECT name, batching FROM models ORDER BY name`)).toEqual([
      { name: 'alone', batching: { maxBatchSize: 8 } },
      { name: 'default', batching: { maxQueueDelayMicros: 2000 } },
      { name: 'empty-sizes', batching: { preferredBatchSizes: [] } },
      { name: 'gen', batching: { maxQueueDelayMicros: 500 } },
      { name: 'one-instance', batching: { preferredBatchSizes: [4] } },
      { name: 'waits', batching: preferred },
      { name: 'zero', batching: { maxQueueDelayMicros: 0 } },
    ]);
    await isolation.sql(`DELETE FROM models`);
  });

  it('take from models the maxBatchSize 32 the old schema stored for everyone, and put it back on down', async () => {
    await revertAfter(config, 'EndpointGenerationDefaults1795384800000');
    const model = (name: string, batching: object) =>
      isolation.sql(
        `INSERT INTO models (name, version, task, artifact_uri, artifact_sha256, batching)
         VALUES ($1, 1, 'text-classification', 'file:///m.onnx', repeat('a', 64), $2)`,
        [name, JSON.stringify(batching)],
      );
    await model('filled', { maxBatchSize: 32, maxQueueSize: 8 });
    await model('chosen', { maxBatchSize: 8 });
    await model('none', {});
    expect((await runMigrations(config, 'up')).applied).toEqual(
      migrationsFrom('ImplicitMaxBatchSize1795388400000'),
    );
    const rows = () => isolation.sql(`SELECT name, batching FROM models ORDER BY name`);
    expect(await rows()).toEqual([
      { name: 'chosen', batching: { maxBatchSize: 8 } },
      { name: 'filled', batching: { maxQueueSize: 8 } },
      { name: 'none', batching: {} },
    ]);
    await revertAfter(config, 'EndpointGenerationDefaults1795384800000');
    expect(await rows()).toEqual([
      { name: 'chosen', batching: { maxBatchSize: 8 } },
      { name: 'filled', batching: { maxQueueSize: 8, maxBatchSize: 32 } },
      { name: 'none', batching: { maxBatchSize: 32 } },
    ]);
    expect((await runMigrations(config, 'up')).applied).toEqual(
      migrationsFrom('ImplicitMaxBatchSize1795388400000'),
    );
    await isolation.sql(`DELETE FROM models`);
  });
});
