// Asynchronous inference while its Redis is down: calls that need the queue answer 503 with
// Retry-After at once instead of holding the request open until Redis returns, and jobs are taken
// again once it is back. The Redis is this file's own (SIGKILLed and restarted, empty).
import {
  type OwnRedis,
  type RunningGateway,
  type RunningWorker,
  startOwnRedis,
  startServingPair,
  waitFor,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Far beyond a refusal (ioredis gives up after one reconnection attempt, 2 s at most). */
const HANGING_MS = 20_000;

describe('gateway: asynchronous inference while Redis is down', () => {
  let redis: OwnRedis;
  let worker: RunningWorker;
  let gateway: RunningGateway;

  beforeAll(async () => {
    redis = await startOwnRedis();
    ({ worker, gateway } = await startServingPair([{ name: 'bert', fixture: 'tiny-bert-sst2' }], {
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

  const submit = () =>
    fetch(`${gateway.url}/serve/sentiment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ text: 'queued' }),
      signal: AbortSignal.timeout(HANGING_MS),
    });
  const statusOf = (url: string) =>
    fetch(`${gateway.url}${url}`, { signal: AbortSignal.timeout(HANGING_MS) });
  async function succeeds(): Promise<string> {
    const accepted = await submit();
    expect(accepted.status).toBe(202);
    const { status_url: url } = (await accepted.json()) as { status_url: string };
    await waitFor(
      async () => ((await (await statusOf(url)).json()) as { status: string }).status === 'succeeded',
    );
    return url;
  }

  it('answers 503 with Retry-After while Redis is down, then queues again once it is back', async () => {
    const before = await succeeds();
    await redis.kill();
    const refused = await submit();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({
      code: 'UNAVAILABLE',
      message: 'asynchronous inference cannot reach its queue (Redis) now; retry later',
    });
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
});
