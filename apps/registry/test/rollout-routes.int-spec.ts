// What a rollout puts in place and judges beyond text-classification, on real Postgres and Redis:
// the routes an abort puts back are held to the checks of routes set by hand, and the shadow phase
// of a task whose answers are compared (text generation) counts compared rows.
import { type AdminClient } from '@modelgate/admin-client';
import { type ModelView } from '@modelgate/contracts';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fixtureRegistration,
  waitForPrepared,
  type RunningRegistry,
  TEST_REDIS_URL,
} from '@modelgate/testing';
import { type Isolation, isolate, startRegistryInProcess } from './support/registry-harness.js';
import { rolloutHelpers } from './support/rollout-helpers.js';

describe('rollout routes and shadow judging (registry, Postgres, heartbeats in Redis)', () => {
  let isolation: Isolation;
  let registry: RunningRegistry & { stop(): Promise<void> };
  let redis: Redis;

  const client = (): AdminClient => registry.admin;
  const { gatewayCounts, workerReady, routes, until, start } = rolloutHelpers(
    client,
    () => redis,
    () => isolation.keyPrefix,
  );
  const register = async (
    fixture: Parameters<typeof fixtureRegistration>[0],
    name: string,
    task: Parameters<typeof fixtureRegistration>[2],
    version: number,
  ) => {
    const body = await fixtureRegistration(fixture, name, task, `${isolation.dir}/files`);
    const registered = await client().post<ModelView>('/v1/models', { ...body, version });
    expect(registered.status).toBe(202);
    expect((await waitForPrepared(client(), registered.body.id)).status).toBe('READY');
  };

  beforeAll(async () => {
    isolation = await isolate();
    registry = await startRegistryInProcess({ ...isolation.env, REGISTRY_ROLLOUT_TICK_MS: '100' });
    redis = new Redis(TEST_REDIS_URL);
    for (const version of [1, 2]) await register('tiny-bert-sst2', 'demo', 'text-classification', version);
    await register('tiny-bert-sst2', 'other', 'text-classification', 1);
    for (const version of [1, 2]) await register('tiny-gpt2', 'gen', 'text-generation', version);
  });

  afterAll(async () => {
    redis?.disconnect();
    await registry?.stop();
    await isolation?.dispose();
  });

  it('leaves out a 0 % canary that could not be routed any more when an abort puts the routes back', async () => {
    expect(
      (await client().post('/v1/endpoints', { name: 'mixed', task: 'text-classification', model: 'demo:1' }))
        .status,
    ).toBe(201);
    const split = await client().put('/v1/endpoints/mixed/routes', {
      routes: [
        { model: 'demo:1', weight: 100 },
        { model: 'other:1', weight: 0 },
      ],
    });
    expect(split.status).toBe(200);
    expect((await start('mixed', { to: 'demo:2', steps: [50, 100], intervalSeconds: 60 })).status).toBe(201);
    await workerReady('demo:1', 'demo:2', 'other:1');
    await until('mixed', (view) => view.state === 'RUNNING' && view.percent === 50);
    // The rollout's steps take the 0 % canary out, so its model may be deleted meanwhile, and its
    // version registered again as a model of another task.
    expect((await routes('mixed')).map((route) => route.model)).not.toContain('other:1');
    expect((await client().delete('/v1/models/other/1')).status).toBe(204);
    await register('tiny-bert-embedder', 'other', 'feature-extraction', 1);

    const aborted = await client().post('/v1/endpoints/mixed/rollout/abort', {});
    expect(aborted.status).toBe(200);
    expect(await routes('mixed')).toEqual([{ model: 'demo:1', weight: 100, role: 'primary' }]);
    const view = await until('mixed', (rollout) => rollout.state === 'ABORTED');
    expect(view.history.at(-1)?.reason).toMatch(
      /\(routes left out: other:1 \(model other:1 does feature-extraction, which a text-classification endpoint cannot serve\)\)$/,
    );
    // The fleet's config still forms: every route names a READY model its endpoint can serve.
    const snapshot = await client().get<{ endpoints: { name: string; routes: unknown[] }[] }>(
      '/v1/config/snapshot',
    );
    expect(snapshot.status).toBe(200);
    expect(snapshot.body.endpoints.find((endpoint) => endpoint.name === 'mixed')?.routes).toEqual([
      { model: 'demo:1', weight: 100, role: 'primary' },
    ]);
  });

  it('holds the shadow phase of a generation endpoint on compared rows, not on answered mirrors', async () => {
    expect(
      (await client().post('/v1/endpoints', { name: 'writer', task: 'text-generation', model: 'gen:1' }))
        .status,
    ).toBe(201);
    const started = await start('writer', {
      to: 'gen:2',
      steps: [50, 100],
      intervalSeconds: 1,
      shadowFirstSeconds: 1,
      minRequests: 100,
    });
    expect(started.status).toBe(201);
    await workerReady('gen:1', 'gen:2');
    await until('writer', (view) => view.phase === 'shadow');
    // 150 answered mirrors, of which the gateways compared only 5 generated texts.
    await gatewayCounts('writer', 'gen:2', { mirrored: 150, agreeing: 5, disagreeing: 0 });
    const held = await until('writer', (view) => view.history.some((entry) => entry.event === 'hold'));
    expect(held.phase).toBe('shadow');
    expect(held.history.find((entry) => entry.event === 'hold')?.reason).toMatch(
      /^5 mirrored rows, fewer than the 100 needed/,
    );
    expect(held.window?.numbers).toMatchObject({ mirrored: 150, agreeing: 5, comparesAnswers: true });
    expect((await client().post('/v1/endpoints/writer/rollout/abort', {})).status).toBe(200);
  });
});
