// The config bus on real Redis: announcements raise the high-water mark beside the channel.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { configChannel } from '@modelgate/config-sync';
import { waitFor, TEST_REDIS_URL } from '@modelgate/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisConfigBus, highWaterKey } from '../src/outbox/config-bus.js';

describe('RedisConfigBus', () => {
  const opened: { close(): Promise<unknown> | void }[] = [];
  afterEach(async () => {
    for (const client of opened.splice(0)) await client.close();
  });

  it('announces and raises a high-water mark that is not a number, instead of failing every announcement', async () => {
    const prefix = `mg-test-bus-${randomUUID()}`;
    const redis = new Redis(TEST_REDIS_URL);
    const subscriber = new Redis(TEST_REDIS_URL);
    opened.push({ close: () => redis.quit() }, { close: () => subscriber.quit() });
    const bus = new RedisConfigBus(TEST_REDIS_URL, prefix);
    opened.push(bus);
    await redis.set(highWaterKey(prefix), 'restored-by-hand');
    const heard = new Promise<string>((resolve) =>
      subscriber.once('message', (_channel, message) => resolve(message)),
    );
    await subscriber.subscribe(configChannel(prefix));
    // The bus queues nothing while it connects (a publish then fails, and the relay retries it):
    // wait until its connection answers.
    await waitFor(async () => (await bus.highWater()) === 0);

    await bus.publish(7);
    expect(JSON.parse(await heard)).toMatchObject({ revision: 7 });
    expect(await redis.get(highWaterKey(prefix))).toBe('7');
    expect(await bus.highWater()).toBe(7);
    await bus.noteServed(5);
    expect(await bus.highWater()).toBe(7);
    await redis.del(highWaterKey(prefix));
  });
});
