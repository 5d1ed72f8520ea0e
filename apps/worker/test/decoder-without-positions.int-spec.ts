// A decoder without position_ids (tiny-gpt2-no-positions) served by the worker: it numbers
// positions from the padded cache, the same for every row, so the worker decodes its sequences one
// at a time and each still gets transformers.js' greedy tokens, also one that arrives while another
// runs. A maxBatchSize the worker could not honour there (neither 1 nor the default) is refused:
// the model fails to load, saying why.
import { ensureFixture } from '@modelgate/fixtures';
import { type RunningWorker, startWorker, transformersGreedy } from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAUSE, collect, encoderOf, follow, request, stepsBetween } from './support/generation-stream.js';

describe('worker: a decoder without position_ids (tiny-gpt2-no-positions)', () => {
  let worker: RunningWorker;
  let fixtureDir: string;
  let encode: (text: string) => number[];

  beforeAll(async () => {
    fixtureDir = await ensureFixture('tiny-gpt2-no-positions');
    encode = await encoderOf(fixtureDir);
    worker = await startWorker(
      [
        // The default maxBatchSize: one sequence at a time.
        { name: 'implicit', fixture: 'tiny-gpt2-no-positions', task: 'text-generation' },
        {
          name: 'implicit-four',
          fixture: 'tiny-gpt2-no-positions',
          task: 'text-generation',
          batching: { maxBatchSize: 4 },
        },
      ],
      // Two quick attempts, so the load is given up on at once.
      { WORKER_LOAD_RETRY_ATTEMPTS: '2', WORKER_LOAD_RETRY_BASE_MS: '20' },
      'settled',
    );
  });

  afterAll(async () => {
    await worker?.stop();
  });

  it('refuses a maxBatchSize it could not honour: the model fails to load, saying why', async () => {
    const probe = await fetch(`${worker.httpUrl}/health/ready`);
    const body = (await probe.json()) as { models: object; reasons: Record<string, string> };
    expect(body.models).toEqual({ 'implicit:1': 'READY', 'implicit-four:1': 'FAILED' });
    expect(body.reasons['implicit-four:1']).toMatch(/gave up after 2 attempts/);
    expect(body.reasons['implicit-four:1']).toContain(
      'batching.maxBatchSize 4 cannot apply: the decoder takes no position_ids',
    );
  });

  it("decodes one sequence at a time, each with transformers.js' greedy tokens", async () => {
    const [a, b] = ['The quick brown fox jumps over', 'Hi'];
    const [expectedA, expectedB] = [
      await transformersGreedy(fixtureDir, a, 8),
      await transformersGreedy(fixtureDir, b, 6),
    ];
    const before = await worker.metrics();
    // A pauses after its 2nd token until one sequence waits: B, sent once A runs, waits for A's slot.
    const streamA = follow(
      worker.client.stream('ModelGenerate', request('implicit', encode(a), 8), {
        metadata: { [PAUSE]: '2:1' },
      }),
    );
    await streamA.first;
    const resultB = collect(worker.client.stream('ModelGenerate', request('implicit', encode(b), 6)));
    expect((await streamA.done).tokens).toEqual(expectedA.tokenIds);
    expect((await resultB).tokens).toEqual(expectedB.tokenIds);
    const after = await worker.metrics();
    const { steps, single } = stepsBetween(before, after, 'implicit');
    expect(steps).toBeGreaterThanOrEqual(12); // A's 8 tokens and B's 6, prefills included
    expect(single).toBe(steps);
  });
});
