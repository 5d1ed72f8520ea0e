// A merged decoder (Optimum's decoder_model_merged: use_cache_branch and an If node over the
// no-past and with-past graphs) served by the worker: it feeds use_cache_branch false on a
// prefill and true on decode steps, and streams exactly transformers.js' greedy tokens, also for
// a sequence that joins a running one mid-flight.
import { ensureFixture } from '@modelgate/fixtures';
import { type RunningWorker, startWorker, transformersGreedy } from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAUSE, collect, encoderOf, follow, request, stepsBetween } from './support/generation-stream.js';

const PROMPTS = ['Hello world', 'The quick brown fox jumps', 'Ünïcödé, emoji 🤖 and 漢字'];

describe('worker: ModelGenerate on a merged decoder (tiny-gpt2-merged)', () => {
  let worker: RunningWorker;
  let fixtureDir: string;
  let encode: (text: string) => number[];

  beforeAll(async () => {
    fixtureDir = await ensureFixture('tiny-gpt2-merged');
    encode = await encoderOf(fixtureDir);
    worker = await startWorker([
      {
        name: 'merged',
        fixture: 'tiny-gpt2-merged',
        task: 'text-generation',
        batching: { maxBatchSize: 4, maxQueueSize: 8 },
      },
    ]);
  });

  afterAll(async () => {
    await worker?.stop();
  });

  it("streams exactly the tokens of transformers.js' greedy text-generation pipeline", async () => {
    for (const prompt of PROMPTS) {
      const expected = await transformersGreedy(fixtureDir, prompt, 12);
      const { tokens } = await collect(
        worker.client.stream(
          'ModelGenerate',
          request('merged', encode(prompt), 12, { eos_token_ids: [50256] }),
        ),
      );
      expect(tokens, prompt).toEqual(expected.tokenIds);
    }
  });

  it('lets a sequence join a running one mid-flight; both still get the pipeline’s greedy tokens', async () => {
    const [a, b] = [PROMPTS[1]!, PROMPTS[2]!];
    const [expectedA, expectedB] = [
      await transformersGreedy(fixtureDir, a, 10),
      await transformersGreedy(fixtureDir, b, 6),
    ];
    const before = await worker.metrics();
    // A pauses after its 2nd token until one sequence waits: B, sent once A runs, joins mid-flight
    // (its prefill on an empty past beside A's decode steps on a full one).
    const streamA = follow(
      worker.client.stream('ModelGenerate', request('merged', encode(a), 10), {
        metadata: { [PAUSE]: '2:1' },
      }),
    );
    await streamA.first;
    const resultB = collect(worker.client.stream('ModelGenerate', request('merged', encode(b), 6)));
    expect((await streamA.done).tokens).toEqual(expectedA.tokenIds);
    expect((await resultB).tokens).toEqual(expectedB.tokenIds);
    const after = await worker.metrics();
    const { steps, single: singleSteps } = stepsBetween(before, after, 'merged');
    expect(steps - singleSteps).toBeGreaterThanOrEqual(5); // B's 5 decode steps ran beside A
  });
});
