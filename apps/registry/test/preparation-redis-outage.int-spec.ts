// A model registered while the registry's Redis is down: its preparation job cannot be queued then,
// and it is queued once Redis is back, without a restart (it used to stay PENDING until the next
// start once the queue gave up on Redis). The Redis is this file's own (SIGKILLed, restarted empty).
import { type ModelView } from '@modelgate/contracts';
import {
  type OwnRedis,
  startOwnRedis,
  fixtureRegistration,
  waitForPrepared,
  type RunningRegistry,
  startRegistryProcess,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Isolation, isolate } from './support/registry-harness.js';

describe('model preparation across a Redis outage', () => {
  let isolation: Isolation;
  let redis: OwnRedis;
  let registry: RunningRegistry;

  beforeAll(async () => {
    isolation = await isolate();
    redis = await startOwnRedis();
    registry = await startRegistryProcess({ ...isolation.env, REDIS_URL: redis.url });
  });

  afterAll(async () => {
    await registry?.stop();
    await redis?.kill();
    await isolation?.dispose();
  });

  it('prepares a model registered while Redis was down once Redis is back', async () => {
    const body = await fixtureRegistration(
      'tiny-bert-sst2',
      'sst2',
      'text-classification',
      `${isolation.dir}/files`,
    );
    await redis.kill();
    const registered = await registry.admin.post<ModelView>('/v1/models', body);
    expect(registered.status).toBe(202);
    expect(registered.body.status).toBe('PENDING');
    // The job could not be queued: the model waits, as it would for minutes of outage.
    expect((await registry.admin.get<ModelView>('/v1/models/sst2/1')).body.status).toBe('PENDING');
    await redis.start();
    expect(await waitForPrepared(registry.admin, 'sst2:1', 30_000)).toMatchObject({ status: 'READY' });
  });
});
