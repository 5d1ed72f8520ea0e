// Asynchronous inference while its Redis is down, lost after the gateway started or down from its
// start: calls that need the queue answer 503 with Retry-After at once instead of holding the
// request open until Redis returns, and jobs are taken again once it is back. The Redis is this
// file's own (SIGKILLed and restarted, empty).
import {
  type OwnRedis,
  type RunningGateway,
  type RunningWorker,
  startGateway,
  startOwnRedis,
  startServingPair,
  waitFor,
} from '@modelgate/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Far beyond a refusal (ioredis gives up after one reconnection attempt, 2 s at most). */
const HANGING_MS = 20_000;

describe('gateway: asynchronous inference while Redis is down', () => {
  let redis: OwnRedis;
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let snapshot: string;

  beforeAll(async () => {
    redis = await startOwnRedis();
    ({ worker, gateway, snapshot } = await startServingPair([{ name: 'bert', fixture: 'tiny-bert-sst2' }], {
      endpoints: [
        {
          name: 'sentiment',
          task: 'text-classification',
          routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
        },
      ],
      gatewayEnv: { REDIS_URL: redis.url },
    }));
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
    await redis?.kill();
  });

  const submit = (to = gateway) =>
    fetch(`${to.url}/serve/sentiment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ text: 'queued' }),
      signal: AbortSignal.timeout(HANGING_MS),
    });
  const statusOf = (url: string, to = gateway) =>
    fetch(`${to.url}${url}`, { signal: AbortSignal.timeout(HANGING_MS) });
  async function succeeds(to = gateway): Promise<string> {
    const accepted = await submit(to);
    expect(accepted.status).toBe(202);
    const { status_url: url } = (await accepted.json()) as { status_url: string };
    await waitFor(
      async () => ((await (await statusOf(url, to)).json()) as { status: string }).status === 'succeeded',
    );
    return url;
  }
  /** The jobs in the Redis (one hash each: `<prefix>:async-inference:<job id>`). */
  async function jobKeys(): Promise<string[]> {
    const client = new Redis(redis.url);
    try {
      const keys = await client.keys('*:async-inference:job-*');
      return keys.filter((key) => /:async-inference:job-[\w-]{24}$/.test(key));
    } finally {
      client.disconnect();
    }
  }
  async function expectRefused(response: Response): Promise<void> {
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({
      code: 'UNAVAILABLE',
      message: 'asynchronous inference cannot reach its queue (Redis) now; retry later',
    });
  }

  it('answers 503 with Retry-After while Redis is down, then queues again once it is back', async () => {
    const before = await succeeds();
    await redis.kill();
    await expectRefused(await submit());
    expect((await statusOf(before)).status).toBe(503);
    await redis.start();
    // The restarted Redis is empty: the earlier job is gone, and new ones run.
    let url = '';
    await waitFor(async () => {
      url = await succeeds();
      return true;
    });
    expect(url).not.toBe(before);
  });

  it('a gateway started while Redis is down answers 503 at once, and queues once Redis is up', async () => {
    await redis.kill();
    const late = await startGateway(snapshot, { REDIS_URL: redis.url });
    try {
      const refused = await submit(late);
      await expectRefused(refused);
      // An id of the right form is looked up in Redis: refused alike, not "unknown".
      const unknown = await statusOf('/jobs/job-AAAAAAAAAAAAAAAAAAAAAAAA', late);
      await expectRefused(unknown);
      await redis.start();
      await waitFor(async () => {
        await succeeds(late);
        return true;
      });
      expect((await statusOf('/jobs/job-AAAAAAAAAAAAAAAAAAAAAAAA', late)).status).toBe(404);
      // The refused submit was not left waiting for Redis to run later: the one job is the new one.
      expect(await jobKeys()).toHaveLength(1);
    } finally {
      // Its shutdown does not wait for Redis either.
      expect(await late.stop()).toBe(0);
    }
  });
});
