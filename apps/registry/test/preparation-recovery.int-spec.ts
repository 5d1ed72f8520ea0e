import { type ModelView } from '@modelgate/contracts';
import {
  waitFor,
  fixtureRegistration,
  waitForPrepared,
  startRegistryProcess,
  TEST_REDIS_URL,
} from '@modelgate/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Isolation, isolate } from './support/registry-harness.js';

/** Short BullMQ lock and stalled-check intervals, so a dead worker's job is found in seconds. */
const FAST_STALL_DETECTION = {
  REGISTRY_PREPARATION_LOCK_MS: '2000',
  REGISTRY_PREPARATION_STALLED_INTERVAL_MS: '1000',
};

describe('model preparation after a crash', () => {
  let isolation: Isolation;

  beforeAll(async () => {
    isolation = await isolate();
  });

  afterAll(async () => {
    await isolation?.dispose();
  });

  it('resumes a job whose registry was killed with SIGKILL mid-preparation, on another registry', async () => {
    const first = await startRegistryProcess({
      ...isolation.env,
      ...FAST_STALL_DETECTION,
      REGISTRY_TEST_PREPARE_DELAY_MS: '120000',
    });
    const body = await fixtureRegistration(
      'tiny-bert-sst2',
      'sst2',
      'text-classification',
      `${isolation.dir}/files`,
    );
    expect((await first.admin.post('/v1/models', body)).status).toBe(202);
    await waitFor(
      async () => (await first.admin.get<ModelView>('/v1/models/sst2/1')).body.status === 'PREPARING',
      {
        timeoutMs: 15_000,
      },
    );

    first.process.child.kill('SIGKILL');
    expect(await first.process.exited).toBe('SIGKILL');

    const second = await startRegistryProcess({ ...isolation.env, ...FAST_STALL_DETECTION });
    try {
      const ready = await waitForPrepared(second.admin, 'sst2:1', 30_000);
      expect(ready).toMatchObject({ status: 'READY', statusReason: null });
      const events = await isolation.sql<{ summary: string }>(
        'SELECT summary FROM config_events ORDER BY revision',
      );
      expect(events.map((event) => event.summary)).toEqual([
        'model.register model:sst2:1',
        'model.ready model:sst2:1',
      ]);
      // BullMQ's stalled check moved the dead worker's job back to wait once (job id = model id).
      const [model] = await isolation.sql<{ id: string }>("SELECT id FROM models WHERE name = 'sst2'");
      const redis = new Redis(TEST_REDIS_URL);
      try {
        expect(await redis.hget(`${isolation.keyPrefix}:model-preparation:${model!.id}`, 'stc')).toBe('1');
      } finally {
        redis.disconnect();
      }
    } finally {
      await second.stop();
    }
  });
});
