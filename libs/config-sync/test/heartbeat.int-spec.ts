import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '@modelgate/testing';
import { heartbeatIndexKey } from '../src/channels.js';
import { HeartbeatPublisher, HeartbeatReader, writeHeartbeat } from '../src/heartbeat.js';

const REDIS_URL = process.env.MODELGATE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('HeartbeatPublisher against a real Redis', () => {
  const redis = new Redis(REDIS_URL);
  afterAll(() => redis.disconnect());

  it('writes its first beat once connected, without reporting an error on start', async () => {
    const prefix = `mg-test-${randomUUID()}`;
    const errors: string[] = [];
    const publisher = new HeartbeatPublisher({
      redisUrl: REDIS_URL,
      keyPrefix: prefix,
      intervalMs: 60_000, // so only the connect-time beat can have written the key
      describe: () => ({ role: 'worker', id: 'node-1', address: '127.0.0.1:1', revision: 1, models: {} }),
      onError: (message) => errors.push(message),
    });
    publisher.start();
    try {
      await waitFor(async () => (await redis.keys(`${prefix}:node:*`)).length === 1, { timeoutMs: 5000 });
      expect(errors).toEqual([]);
    } finally {
      await publisher.stop();
    }
    expect(await redis.keys(`${prefix}:*`)).toEqual([]);
  });

  /** How many SCAN commands the server has run (INFO commandstats). */
  async function scansSoFar(): Promise<number> {
    const stats = await redis.info('commandstats');
    return Number(/cmdstat_scan:calls=(\d+)/.exec(stats)?.[1] ?? 0);
  }

  it('reads nodes from the node index without scanning the key space, and drops expired ones', async () => {
    const prefix = `mg-test-${randomUUID()}`;
    const reader = new HeartbeatReader(REDIS_URL, prefix);
    try {
      // Many other keys under the same prefix, as BullMQ's are.
      await redis.mset(...Array.from({ length: 2000 }, (_, i) => [`${prefix}:bull:job:${i}`, 'x']).flat());
      await writeHeartbeat(
        redis,
        prefix,
        { role: 'worker', id: 'w1', address: 'a:1', revision: 3, models: {} },
        30_000,
      );
      await writeHeartbeat(
        redis,
        prefix,
        { role: 'gateway', id: 'g1', address: 'b:2', revision: 3, models: {} },
        30_000,
      );
      await writeHeartbeat(
        redis,
        prefix,
        { role: 'worker', id: 'gone', address: 'c:3', revision: 1, models: {} },
        50,
      );
      await waitFor(async () => (await redis.exists(`${prefix}:node:worker:gone`)) === 0, {
        timeoutMs: 5000,
      });

      const scansBefore = await scansSoFar();
      const nodes = await reader.read();
      expect(await scansSoFar()).toBe(scansBefore);
      expect(nodes.map((node) => `${node.role}/${node.id}`).sort()).toEqual(['gateway/g1', 'worker/w1']);
      expect(nodes.find((node) => node.id === 'w1')).toMatchObject({
        address: 'a:1',
        revision: 3,
        reasons: {},
      });
      // A stopped publisher leaves the index too.
      const publisher = new HeartbeatPublisher({
        redisUrl: REDIS_URL,
        keyPrefix: prefix,
        describe: () => ({ role: 'worker', id: 'w2', address: 'd:4', revision: 3, models: {} }),
      });
      publisher.start();
      await waitFor(async () => (await reader.read()).some((node) => node.id === 'w2'), { timeoutMs: 5000 });
      await publisher.stop();
      expect(await redis.zscore(heartbeatIndexKey(prefix), `${prefix}:node:worker:w2`)).toBeNull();
      expect((await reader.read()).map((node) => node.id).sort()).toEqual(['g1', 'w1']);
    } finally {
      reader.close();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
  });
});
