// Options of /serve that text-generation endpoints take as the encoders' do: asynchronous jobs
// (Prefer: respond-async, answered as one JSON result) and shadow routes (mirrored, discarded).
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type RunningGateway,
  type RunningWorker,
  freePort,
  metricValue,
  startGateway,
  startWorkerWithSnapshot,
  waitFor,
  writeSnapshot,
} from '@modelgate/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REDIS_URL = process.env.MODELGATE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PROMPT = 'The weather today';

interface JobView {
  status: string;
  result?: {
    model: string;
    version: string;
    predictions: { generated_text: string; finish_reason: string }[];
  };
  error?: { code: string; message: string };
}

describe('gateway: asynchronous jobs and shadow routes of a text-generation endpoint', () => {
  const keyPrefix = `mgtest-genasync-${randomBytes(4).toString('hex')}`;
  let worker: RunningWorker;
  let gateway: RunningGateway;

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-gen-async-'));
    const port = await freePort();
    const gpt = { fixture: 'tiny-gpt2', task: 'text-generation', name: 'gpt' };
    const snapshot = await writeSnapshot(
      dir,
      [
        { ...gpt, version: '1' },
        { ...gpt, version: '2' },
      ],
      {
        workerGroups: [{ name: 'default', addresses: [`127.0.0.1:${port}`] }],
        endpoints: [
          {
            name: 'writer',
            task: 'text-generation',
            routes: [
              { model: 'gpt:1', weight: 100, role: 'primary' },
              { model: 'gpt:2', weight: 100, role: 'shadow' },
            ],
          },
        ],
      },
    );
    worker = await startWorkerWithSnapshot(snapshot, { WORKER_GRPC_PORT: String(port) });
    gateway = await startGateway(snapshot, { REDIS_URL, REDIS_KEY_PREFIX: keyPrefix });
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${keyPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  const parameters = { max_new_tokens: 8 };

  it('runs an asynchronous job to the same JSON answer as a synchronous call', async () => {
    const direct = await gateway.post('/serve/writer', { text: PROMPT, parameters });
    expect(direct.status).toBe(200);
    const accepted = await gateway.post(
      '/serve/writer',
      { text: PROMPT, parameters },
      { prefer: 'respond-async' },
    );
    expect(accepted.status).toBe(202);
    const { status_url } = accepted.body as { status_url: string };
    let view: JobView | undefined;
    await waitFor(
      async () =>
        ['succeeded', 'failed'].includes(
          (view = (await (await fetch(gateway.url + status_url)).json()) as JobView).status,
        ),
      { describe: () => JSON.stringify(view) },
    );
    expect(view?.status).toBe('succeeded');
    expect(view?.result).toEqual(direct.body);
  });

  it('refuses stream with Prefer: respond-async, naming the field', async () => {
    const answer = await gateway.post(
      '/serve/writer',
      { text: PROMPT, stream: true },
      { prefer: 'respond-async' },
    );
    expect(answer.status).toBe(400);
    expect((answer.body as { error: { field: string } }).error.field).toBe('stream');
  });

  it('refuses a version the endpoint does not route at submission, as the synchronous call does', async () => {
    const sync = await gateway.post('/serve/writer/7', { text: PROMPT });
    const queued = await gateway.post('/serve/writer/7', { text: PROMPT }, { prefer: 'respond-async' });
    expect(sync.status).toBe(404);
    // It used to be accepted (202) and fail when the job ran.
    const errorOf = (answer: typeof sync) =>
      (answer.body as { error: { message: string; field: string } }).error;
    expect(queued.status).toBe(404);
    expect(errorOf(queued)).toMatchObject({ field: 'version', message: errorOf(sync).message });
  });

  it("refuses at submission a prompt past the model's positions, as the synchronous call does", async () => {
    const body = { text: PROMPT.repeat(200), parameters };
    const sync = await gateway.post('/serve/writer', body);
    const queued = await gateway.post('/serve/writer', body, { prefer: 'respond-async' });
    expect(sync.status).toBe(422);
    // It used to be accepted (202), and the job failed when it ran.
    expect(queued.status).toBe(422);
    const errorOf = (answer: typeof sync) =>
      (answer.body as { error: { code: string; message: string } }).error;
    expect(errorOf(queued)).toMatchObject({ code: errorOf(sync).code, message: errorOf(sync).message });
  });

  it('mirrors calls to the shadow model, which agrees on greedy text, and answers from the primary', async () => {
    const shadow = { serving_endpoint: 'writer', model: 'gpt', version: '2' };
    const metric = async (name: string, labels: Record<string, string>) =>
      metricValue(await (await fetch(`${gateway.url}/metrics`)).text(), name, labels);
    const before = await metric('modelgate_shadow_requests_total', { ...shadow, outcome: 'ok' });
    const answers = [
      await gateway.post('/serve/writer', { text: PROMPT, parameters }),
      await gateway.post('/serve/writer', { text: PROMPT, parameters, stream: true }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect((answers[0]!.body as { version: string }).version).toBe('1');
    await waitFor(
      async () =>
        (await metric('modelgate_shadow_requests_total', { ...shadow, outcome: 'ok' })) >= before + 2,
    );
    expect(
      await metric('modelgate_shadow_agreement_total', { ...shadow, result: 'agree' }),
    ).toBeGreaterThanOrEqual(2);
    expect(await metric('modelgate_shadow_agreement_total', { ...shadow, result: 'disagree' })).toBe(0);
  });

  it('leaves sampled calls without a seed out of the agreement (uncompared), and compares seeded ones', async () => {
    const shadow = { serving_endpoint: 'writer', model: 'gpt', version: '2' };
    const metric = async (name: string, labels: Record<string, string>) =>
      metricValue(await (await fetch(`${gateway.url}/metrics`)).text(), name, labels);
    const count = (result: string) => metric('modelgate_shadow_agreement_total', { ...shadow, result });
    const [okBefore, uncomparedBefore, agreeBefore] = [
      await metric('modelgate_shadow_requests_total', { ...shadow, outcome: 'ok' }),
      await count('uncompared'),
      await count('agree'),
    ];
    const sampled = await gateway.post('/serve/writer', {
      text: PROMPT,
      parameters: { max_new_tokens: 8, do_sample: true, temperature: 1.5 },
    });
    const seeded = await gateway.post('/serve/writer', {
      text: PROMPT,
      parameters: { max_new_tokens: 8, do_sample: true, temperature: 1.5, seed: 11 },
    });
    expect([sampled.status, seeded.status]).toEqual([200, 200]);
    await waitFor(
      async () =>
        (await metric('modelgate_shadow_requests_total', { ...shadow, outcome: 'ok' })) >= okBefore + 2,
    );
    expect(await count('uncompared')).toBe(uncomparedBefore + 1);
    // The shadow (same weights) draws the same tokens from the same seed.
    expect(await count('agree')).toBe(agreeBefore + 1);
    expect(await count('disagree')).toBe(0);
  });
});
