import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  type RunningGateway,
  type RunningWorker,
  freePort,
  startGateway,
  startWorkerWithSnapshot,
  writeSnapshot,
} from '@modelgate/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REDIS_URL = process.env.MODELGATE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Bodies a careless or hostile client might send: random JSON, and valid bodies bent out of shape. */
const validBody = fc.record(
  {
    text: fc.oneof(fc.string({ maxLength: 200 }), fc.array(fc.string({ maxLength: 50 }), { maxLength: 8 })),
    text_pair: fc.oneof(
      fc.string({ maxLength: 50 }),
      fc.array(fc.string({ maxLength: 20 }), { maxLength: 8 }),
    ),
    parameters: fc.record(
      {
        top_k: fc.oneof(fc.integer({ min: -5, max: 10 }), fc.double(), fc.string()),
        truncation: fc.oneof(fc.boolean(), fc.constant(null), fc.integer()),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['text'] },
);
const bodyArbitrary = fc.oneof(
  validBody.map((body) => JSON.stringify(body)),
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  fc.string({ maxLength: 300 }),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  validBody.chain((body) =>
    fc
      .nat({ max: 40 })
      .map((cut) => JSON.stringify(body).slice(0, Math.max(0, JSON.stringify(body).length - cut))),
  ),
);
const pathArbitrary = fc.oneof(
  fc.constant('/serve/sentiment'),
  fc.constant('/serve/sentiment/1'),
  fc.constant('/v2/models/bert/infer'),
  fc.string({ maxLength: 30 }).map((s) => `/serve/${encodeURIComponent(s)}`),
  fc.string({ maxLength: 10 }).map((s) => `/serve/sentiment/${encodeURIComponent(s)}`),
);

/** x-request-id values a client may send: absent, digits, colons, any printable ASCII. */
const requestIdArbitrary = fc.oneof(
  fc.constant(undefined),
  fc.nat().map(String),
  fc.stringMatching(/^[a-z0-9]{1,8}(:[a-z0-9]{1,8}){1,3}$/),
  fc.stringMatching(/^[\x21-\x7e]{1,300}$/),
);
/** Prefer values: mostly absent, else respond-async in several spellings, or nonsense. */
const preferArbitrary = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 6 },
  { arbitrary: fc.constantFrom('respond-async', 'respond-async, wait=5', 'RESPOND-ASYNC'), weight: 3 },
  { arbitrary: fc.stringMatching(/^[\x21-\x7e]{1,40}$/), weight: 1 },
);

describe('gateway: hostile input', () => {
  const keyPrefix = `mgtest-fuzz-${randomBytes(4).toString('hex')}`;
  let worker: RunningWorker;
  let gateway: RunningGateway;

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-fuzz-'));
    const port = await freePort();
    const snapshot = await writeSnapshot(dir, [{ name: 'bert', fixture: 'tiny-bert-sst2' }], {
      workerGroups: [{ name: 'default', addresses: [`127.0.0.1:${port}`] }],
      endpoints: [
        {
          name: 'sentiment',
          task: 'text-classification',
          routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
        },
      ],
    });
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

  it('answers 10,000 random or mutated bodies, request ids and Prefer headers without a single 5xx, and stays up', async () => {
    const cases = fc.sample(fc.tuple(pathArbitrary, bodyArbitrary, requestIdArbitrary, preferArbitrary), {
      numRuns: 10_000,
      seed: 20261121,
    });
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < cases.length) {
          const [path, payload, requestId, prefer] = cases[next++]!;
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (requestId !== undefined) headers['x-request-id'] = requestId;
          if (prefer !== undefined) headers.prefer = prefer;
          const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers, body: payload });
          await response.arrayBuffer();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          if (response.status >= 500) {
            failures.push(
              `${response.status} ${path} id=${requestId} prefer=${prefer} ${payload.slice(0, 120)}`,
            );
          }
        }
      }),
    );
    expect(failures).toEqual([]);
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0); // some bodies were valid and served
    expect(statuses.get(202) ?? 0).toBeGreaterThan(0); // and some queued as jobs
    const live = await fetch(`${gateway.url}/health/live`);
    expect(live.status).toBe(200);
    expect(gateway.process.child.exitCode).toBeNull();
  });
});
