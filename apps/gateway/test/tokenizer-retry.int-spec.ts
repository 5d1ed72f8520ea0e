import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { heartbeatPattern, parseHeartbeat } from '@modelgate/config-sync';
import {
  type RunningGateway,
  type RunningWorker,
  freePort,
  startGateway,
  startWorkerWithSnapshot,
  waitFor,
  writeSnapshot,
} from '@modelgate/testing';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REDIS_URL = process.env.MODELGATE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const BACKLOG_JOB = `job-${randomBytes(18).toString('base64url')}`;

describe('gateway: a tokenizer that cannot be fetched is retried, and the revision applies only then (async jobs wait for it)', () => {
  const keyPrefix = `mgtest-tokretry-${randomBytes(4).toString('hex')}`;
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let redis: Redis;
  let bundlePath: string;

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-tokenizer-retry-'));
    const port = await freePort();
    const snapshotPath = await writeSnapshot(dir, [{ name: 'bert', fixture: 'tiny-bert-sst2' }], {
      workerGroups: [{ name: 'default', addresses: [`127.0.0.1:${port}`] }],
      endpoints: [
        {
          name: 'sentiment',
          task: 'text-classification',
          routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
        },
      ],
    });
    const snapshot = JSON.parse(await readFile(snapshotPath, 'utf8')) as {
      models: { tokenizer: { uri: string } }[];
    };
    bundlePath = snapshot.models[0]!.tokenizer.uri.replace('file://', '');
    worker = await startWorkerWithSnapshot(snapshotPath, { WORKER_GRPC_PORT: String(port) });
    // The tokenizer's store is "down": the file is not where the snapshot says.
    await rename(bundlePath, `${bundlePath}.away`);
    redis = new Redis(REDIS_URL);
    // A job queued six minutes ago, past the retry window of jobs the fleet could not serve: one
    // this gateway took before it had its config would fail for good.
    const queue = new Queue('async-inference', { connection: redis, prefix: `${keyPrefix}:bull` });
    await queue.add(
      'serve',
      { endpoint: 'sentiment', body: { text: 'I love it' }, requestId: 'backlog' },
      {
        jobId: BACKLOG_JOB,
        timestamp: Date.now() - 6 * 60_000,
        attempts: 100,
        backoff: { type: 'fixed', delay: 100 },
      },
    );
    await queue.close();
    gateway = await startGateway(snapshotPath, { REDIS_URL, REDIS_KEY_PREFIX: keyPrefix });
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
    const keys = await redis.keys(`${keyPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis?.disconnect();
  });

  async function gatewayBeat() {
    const keys = await redis.keys(heartbeatPattern(keyPrefix));
    const beats = await Promise.all(keys.map(async (key) => parseHeartbeat(await redis.get(key))));
    return beats.find((beat) => beat?.role === 'gateway');
  }

  it('answers 503 with the reason while it retries, then serves once the tokenizer can be fetched', async () => {
    const failing = await gateway.post('/serve/sentiment', { text: 'I love it' });
    expect(failing.status).toBe(503);
    expect((failing.body as { error: { message: string } }).error.message).toMatch(
      /model bert:1 cannot be served by this gateway: .*\(attempt \d of 6; retrying in \d+ ms\)/,
    );
    // Not applied while a model of the revision waits for another try, and status says why.
    await waitFor(async () => (await gatewayBeat()) !== undefined);
    const beat = await gatewayBeat();
    expect(beat?.revision).toBeNull();
    expect(beat?.reasons['bert:1']).toMatch(/retrying in/);

    await rename(`${bundlePath}.away`, bundlePath); // the store is back
    let answer = failing;
    await waitFor(
      async () => (answer = await gateway.post('/serve/sentiment', { text: 'I love it' })).status === 200,
      {
        describe: () => JSON.stringify(answer.body),
      },
    );
    await waitFor(async () => (await gatewayBeat())?.revision === 1);
    expect((await gatewayBeat())?.reasons).toEqual({});

    // The job queued before this gateway started waited for its config, and ran once.
    let job: { status: string } | undefined;
    await waitFor(
      async () =>
        ['succeeded', 'failed'].includes(
          (job = (await (await fetch(`${gateway.url}/jobs/${BACKLOG_JOB}`)).json()) as { status: string })
            .status,
        ),
      { describe: () => JSON.stringify(job) },
    );
    expect(job, JSON.stringify(job)).toMatchObject({
      status: 'succeeded',
      result: { endpoint: 'sentiment', model: 'bert' },
    });
  });
});
