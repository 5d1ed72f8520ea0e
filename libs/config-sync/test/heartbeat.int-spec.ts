import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '@modelgate/testing';
import { HeartbeatPublisher } from '../src/heartbeat.js';

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
      await waitFor(async () => (await redis.keys(`${prefix}:*`)).length === 1, { timeoutMs: 5000 });
      expect(errors).toEqual([]);
    } finally {
      await publisher.stop();
    }
    expect(await redis.keys(`${prefix}:*`)).toEqual([]);
  });
});
