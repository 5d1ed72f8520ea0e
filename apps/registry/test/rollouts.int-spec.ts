// Rollouts driven by the registry on real Postgres, judged on heartbeats written into real Redis
// with the nodes' own heartbeat writer: the API and its 409s, windows that hold, promote and roll
// back, moves by hand, a restart mid-rollout, two replicas at once, and no Redis at all.
import { type AdminClient } from '@modelgate/admin-client';
import { type ApiErrorBody, type ModelView, type RolloutView, type Route } from '@modelgate/contracts';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fixtureRegistration,
  waitForPrepared,
  type RunningRegistry,
  withoutRedis,
  TEST_REDIS_URL,
} from '@modelgate/testing';
import { type Isolation, isolate, startRegistryInProcess } from './support/registry-harness.js';
import { rolloutHelpers } from './support/rollout-helpers.js';

describe('rollouts (registry, Postgres, heartbeats in Redis)', () => {
  let isolation: Isolation;
  let registry: RunningRegistry & { stop(): Promise<void> };
  let redis: Redis;
  let env: Record<string, string>;

  const client = (): AdminClient => registry.admin;
  const { gatewayCounts, workerReady, routes, until, start } = rolloutHelpers(
    client,
    () => redis,
    () => isolation.keyPrefix,
  );
  const createEndpoint = async (name: string, model = 'demo:1') =>
    expect((await client().post('/v1/endpoints', { name, task: 'text-classification', model })).status).toBe(
      201,
    );

  beforeAll(async () => {
    isolation = await isolate();
    env = { ...isolation.env, REGISTRY_ROLLOUT_TICK_MS: '100' };
    registry = await startRegistryInProcess(env);
    redis = new Redis(TEST_REDIS_URL);
    // demo:1-3 (text-classification) and embed:1-2 (feature-extraction), all READY.
    for (const [fixture, name, task, versions] of [
      ['tiny-bert-sst2', 'demo', 'text-classification', 3],
      ['tiny-bert-embedder', 'embed', 'feature-extraction', 2],
    ] as const) {
      const body = await fixtureRegistration(fixture, name, task, `${isolation.dir}/files`);
      for (let version = 1; version <= versions; version++) {
        const registered = await registry.admin.post<ModelView>('/v1/models', body);
        expect((await waitForPrepared(registry.admin, registered.body.id)).status).toBe('READY');
      }
    }
  });

  afterAll(async () => {
    redis?.disconnect();
    await registry?.stop();
    await isolation?.dispose();
  });

  it('starts PENDING with the candidate as a 0 % shadow, and refuses a second rollout and manual routes with 409', async () => {
    await createEndpoint('first');
    const revision = async () =>
      Number((await client().get<{ revision: number }>('/v1/config/snapshot')).body.revision);
    const before = await revision();
    const started = await start('first', {
      to: 'demo:2',
      steps: [20, 100],
      intervalSeconds: 1,
      minRequests: 10,
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ endpoint: 'first', from: 'demo:1', to: 'demo:2', state: 'PENDING' });
    expect(started.body.waitingFor).toMatch(/no worker has reported demo:2 yet/);
    expect(await revision()).toBe(before + 1);
    expect(await routes('first')).toEqual([
      { model: 'demo:1', weight: 100, role: 'primary' },
      { model: 'demo:2', weight: 0, role: 'shadow' },
    ]);

    const second = await start('first', { to: 'demo:3' });
    expect(second.status).toBe(409);
    expect(second.body.error.message).toMatch(/already has a rollout to demo:2 in progress \(PENDING\)/);
    const manual = await client().put<ApiErrorBody>('/v1/endpoints/first/routes', {
      routes: [{ model: 'demo:1', weight: 100 }],
    });
    expect(manual.status).toBe(409);
    expect(manual.body.error.message).toContain('modelgate rollout pause first');
    expect(manual.body.error.message).toContain('modelgate rollout abort first');

    const status = await client().get<{ rollouts: unknown[] }>('/v1/status');
    expect(status.body.rollouts).toContainEqual(
      expect.objectContaining({ endpoint: 'first', to: 'demo:2', state: 'PENDING', percent: 0 }),
    );
    expect((await client().post('/v1/endpoints/first/rollout/abort', {})).status).toBe(200);
  });

  it('refuses minAgreement on an endpoint whose shadow answers are not compared row by row', async () => {
    const created = await client().post('/v1/endpoints', {
      name: 'vectors',
      task: 'feature-extraction',
      model: 'embed:1',
    });
    expect(created.status).toBe(201);
    const refused = await start('vectors', { to: 'embed:2', shadowFirstSeconds: 5, minAgreement: 0.9 });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      field: 'minAgreement',
      message: expect.stringMatching(
        /^minAgreement: feature-extraction answers are not compared row by row, so no agreement is measured \(only for text-classification, image-classification, text-generation, image-to-text\); leave it out$/,
      ) as unknown,
    });
    const shadowed = await start('vectors', { to: 'embed:2', shadowFirstSeconds: 5 });
    expect(shadowed.status).toBe(201);
    expect((await client().post('/v1/endpoints/vectors/rollout/abort', {})).status).toBe(200);
  });

  let refusals = 0;
  it.each<[string, Record<string, unknown>, number, RegExp]>([
    ['steps that do not end at 100', { to: 'demo:2', steps: [10, 50] }, 400, /steps: must end at 100/],
    [
      'shadowPercent without a shadow phase',
      { to: 'demo:2', shadowPercent: 50 },
      400,
      /shadowPercent: applies to the shadow phase: give shadowFirstSeconds too/,
    ],
    ['an unknown candidate', { to: 'demo:9' }, 404, /to: model demo:9 does not exist/],
    ['the primary itself', { to: 'demo:1' }, 409, /demo:1 is already the endpoint's primary/],
  ])('refuses %s', async (_what, body, status, message) => {
    const name = `refuse-${++refusals}`;
    await createEndpoint(name);
    const refused = await start(name, body);
    expect(refused.status).toBe(status);
    expect(refused.body.error.message).toMatch(message);
    expect((await client().get(`/v1/endpoints/${name}/rollout`)).status).toBe(404);
  });

  it('holds a window with too little traffic, then promotes step by step to COMPLETED', async () => {
    await createEndpoint('steady');
    await gatewayCounts('steady', 'demo:2', { served: 0 });
    expect(
      (await start('steady', { to: 'demo:2', steps: [20, 50, 100], intervalSeconds: 1, minRequests: 10 }))
        .status,
    ).toBe(201);
    await workerReady('demo:1', 'demo:2', 'demo:3');
    await until('steady', (view) => view.state === 'RUNNING' && view.percent === 20);
    expect(await routes('steady')).toEqual([
      { model: 'demo:1', weight: 80, role: 'primary' },
      { model: 'demo:2', weight: 20, role: 'canary' },
    ]);
    await gatewayCounts('steady', 'demo:2', { served: 5 });
    await until('steady', (view) => view.history.some((entry) => entry.event === 'hold'));
    await gatewayCounts('steady', 'demo:2', { served: 30 });
    const half = await until('steady', (view) => view.percent === 50);
    expect(half.history.at(-1)).toMatchObject({
      event: 'promote',
      percent: 50,
      window: { requests: 30, errors: 0 },
    });
    await gatewayCounts('steady', 'demo:2', { served: 60, agreeing: 0 });
    const done = await until('steady', (view) => view.state === 'COMPLETED');
    expect(done.history.map((entry) => `${entry.event}:${entry.percent}`)).toContain('hold:20');
    // Holds fold into one entry per step; a window may end before the test writes the next counts.
    expect(
      done.history
        .filter((entry) => entry.event !== 'hold')
        .map((entry) => `${entry.event}:${entry.percent}`),
    ).toEqual(['start:0', 'ready:20', 'promote:50', 'promote:100']);
    expect(await routes('steady')).toEqual([{ model: 'demo:2', weight: 100, role: 'primary' }]);
  });

  it('rolls back a window whose error rate is over the limit, putting the previous routes back', async () => {
    await createEndpoint('flaky');
    const previous: Route[] = [
      { model: 'demo:1', weight: 100, role: 'primary' },
      { model: 'demo:2', weight: 10, role: 'shadow' },
    ];
    expect((await client().put('/v1/endpoints/flaky/routes', { routes: previous })).status).toBe(200);
    expect(
      (await start('flaky', { to: 'demo:3', steps: [10, 100], intervalSeconds: 1, minRequests: 10 })).status,
    ).toBe(201);
    await workerReady('demo:1', 'demo:2', 'demo:3');
    await until('flaky', (view) => view.state === 'RUNNING');
    expect(await routes('flaky')).toEqual([
      { model: 'demo:1', weight: 90, role: 'primary' },
      { model: 'demo:3', weight: 10, role: 'canary' },
      { model: 'demo:2', weight: 10, role: 'shadow' },
    ]);
    await gatewayCounts('flaky', 'demo:3', { served: 20, failed: 5 });
    const back = await until('flaky', (view) => view.state === 'ROLLED_BACK');
    expect(back.history.at(-1)).toMatchObject({
      event: 'rollback',
      reason: expect.stringMatching(/error rate 25\.0 % \(5 of 20\) above 1\.00 %/) as string,
    });
    expect(await routes('flaky')).toEqual(previous);
  });

  it('rolls back during the shadow phase when mirrored rows disagree, before any live step', async () => {
    await createEndpoint('moody');
    expect(
      (
        await start('moody', {
          to: 'demo:3',
          steps: [10, 100],
          intervalSeconds: 1,
          shadowFirstSeconds: 1,
          minRequests: 10,
        })
      ).status,
    ).toBe(201);
    await workerReady('demo:1', 'demo:2', 'demo:3');
    await until('moody', (view) => view.phase === 'shadow');
    expect(await routes('moody')).toContainEqual({ model: 'demo:3', weight: 100, role: 'shadow' });
    await gatewayCounts('moody', 'demo:3', { mirrored: 20, agreeing: 2, disagreeing: 18 });
    const back = await until('moody', (view) => view.state === 'ROLLED_BACK');
    expect(back.history.map((entry) => entry.phase)).not.toContain('live');
    expect(back.history.at(-1)?.reason).toMatch(/agreement 10\.0 % below 95\.0 % over 20 mirrored rows/);
    expect(await routes('moody')).toEqual([{ model: 'demo:1', weight: 100, role: 'primary' }]);
  });

  it('pauses with the routes held, resumes, aborts to the previous routes, and promotes by hand', async () => {
    await createEndpoint('manual');
    expect((await client().post<ApiErrorBody>('/v1/endpoints/manual/rollout/pause', {})).status).toBe(404);
    expect((await start('manual', { to: 'demo:2', steps: [30, 100], intervalSeconds: 60 })).status).toBe(201);
    await workerReady('demo:1', 'demo:2', 'demo:3');
    await until('manual', (view) => view.state === 'RUNNING');
    const withBody = await client().post<ApiErrorBody>('/v1/endpoints/manual/rollout/pause', { reason: 'x' });
    expect(withBody.status).toBe(400);
    expect(withBody.body.error.message).toContain('takes no body');
    const paused = await client().post<RolloutView>('/v1/endpoints/manual/rollout/pause', {});
    expect(paused.body).toMatchObject({ state: 'PAUSED', percent: 30, window: null });
    expect(await routes('manual')).toContainEqual({ model: 'demo:2', weight: 30, role: 'canary' });
    const resumed = await client().post<RolloutView>('/v1/endpoints/manual/rollout/resume', {});
    expect(resumed.body).toMatchObject({ state: 'RUNNING', percent: 30 });
    expect(resumed.body.window?.numbers).toMatchObject({ requests: 0 });
    const aborted = await client().post<RolloutView>('/v1/endpoints/manual/rollout/abort', {});
    expect(aborted.body).toMatchObject({ state: 'ABORTED', percent: 0 });
    expect(await routes('manual')).toEqual([{ model: 'demo:1', weight: 100, role: 'primary' }]);
    expect((await client().post<ApiErrorBody>('/v1/endpoints/manual/rollout/resume', {})).status).toBe(404);

    expect((await start('manual', { to: 'demo:3' })).status).toBe(201);
    const promoted = await client().post<RolloutView>('/v1/endpoints/manual/rollout/promote', {});
    expect(promoted.body).toMatchObject({ state: 'COMPLETED', percent: 100 });
    expect(promoted.body.history.at(-1)).toMatchObject({ event: 'force-promote', actor: 'token:bootstrap' });
    expect(await routes('manual')).toEqual([{ model: 'demo:3', weight: 100, role: 'primary' }]);
  });

  it('carries on after a registry restart, judging the window on the baseline stored before it', async () => {
    await createEndpoint('restart');
    await gatewayCounts('restart', 'demo:2', { served: 100 });
    expect(
      (await start('restart', { to: 'demo:2', steps: [10, 100], intervalSeconds: 1, minRequests: 10 }))
        .status,
    ).toBe(201);
    await workerReady('demo:1', 'demo:2', 'demo:3');
    await until('restart', (view) => view.state === 'RUNNING');
    await registry.stop();
    await gatewayCounts('restart', 'demo:2', { served: 150 });
    registry = await startRegistryInProcess(env);
    const done = await until('restart', (view) => view.state === 'COMPLETED');
    // 50, not 150: the new process judged the window from the counters stored when it began.
    expect(done.history.at(-1)).toMatchObject({ event: 'promote', window: { requests: 50 } });
  });

  it('with two registries on one database, moves each rollout once', async () => {
    const other = await startRegistryInProcess(env);
    try {
      await createEndpoint('pair');
      await gatewayCounts('pair', 'demo:2', { served: 0 });
      expect(
        (await start('pair', { to: 'demo:2', steps: [10, 50, 100], intervalSeconds: 1, minRequests: 1 }))
          .status,
      ).toBe(201);
      await workerReady('demo:1', 'demo:2', 'demo:3');
      await until('pair', (view) => view.state === 'RUNNING');
      await gatewayCounts('pair', 'demo:2', { served: 10 });
      await until('pair', (view) => view.percent === 50);
      await gatewayCounts('pair', 'demo:2', { served: 20 });
      const done = await until('pair', (view) => view.state === 'COMPLETED');
      expect(done.history.filter((entry) => entry.event !== 'hold').map((entry) => entry.event)).toEqual([
        'start',
        'ready',
        'promote',
        'promote',
      ]);
      const moves = await isolation.sql<{ action: string }>(
        `SELECT action FROM audit_log WHERE target = 'endpoint:pair' AND action LIKE 'rollout.%' ORDER BY id`,
      );
      expect(moves.map((move) => move.action)).toEqual([
        'rollout.start',
        'rollout.ready',
        'rollout.promote',
        'rollout.promote',
      ]);
    } finally {
      await other.stop();
    }
  });

  it('refuses to start a rollout without Redis, saying why', async () => {
    await createEndpoint('standalone');
    const alone = await startRegistryInProcess(withoutRedis(env));
    try {
      const refused = await alone.admin.post<ApiErrorBody>('/v1/endpoints/standalone/rollouts', {
        to: 'demo:2',
      });
      expect(refused.status).toBe(503);
      expect(refused.body.error.message).toMatch(
        /rollouts need Redis: the gateways report each candidate’s numbers/,
      );
    } finally {
      await alone.stop();
    }
  });
});
