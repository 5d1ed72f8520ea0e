import { ensureFixture, getFixtureSpec } from '@modelgate/fixtures';
import { DecoderSession, type RunningWorker, startWorker, transformersGreedy } from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HOLD_AFTER_FIRST,
  PAUSE,
  PROMPTS,
  collect,
  encoderOf,
  follow,
  metricDelta,
  request,
  stepsBetween,
} from './support/generation-stream.js';

describe('worker: ModelGenerate with continuous batching over onnxruntime (tiny-gpt2)', () => {
  let worker: RunningWorker;
  let reference: DecoderSession;
  let fixtureDir: string;

  beforeAll(async () => {
    fixtureDir = await ensureFixture('tiny-gpt2');
    reference = await DecoderSession.open(fixtureDir, getFixtureSpec('tiny-gpt2'));
    worker = await startWorker([
      {
        name: 'gpt',
        fixture: 'tiny-gpt2',
        task: 'text-generation',
        batching: { maxBatchSize: 4, maxQueueSize: 8 },
      },
      {
        name: 'pair',
        fixture: 'tiny-gpt2',
        task: 'text-generation',
        instances: 2,
        batching: { maxBatchSize: 2, maxQueueSize: 8 },
      },
    ]);
  });

  afterAll(async () => {
    await worker?.stop();
    await reference?.release();
  });

  it('streams exactly the greedy tokens of a cache-free reference, one message per token', async () => {
    for (const prompt of PROMPTS) {
      const expected = await reference.greedyUncached(prompt, 12);
      const { tokens, messages } = await collect(
        worker.client.stream('ModelGenerate', request('gpt', prompt, 12, { id: 'p' })),
      );
      expect(tokens).toEqual(expected);
      expect(messages).toHaveLength(12);
      expect(messages.map((m) => m.finish_reason)).toEqual([...Array<string>(11).fill(''), 'length']);
      expect(messages.at(-1)).toMatchObject({
        model_name: 'gpt',
        model_version: '1',
        id: 'p',
        prompt_tokens: prompt.length,
        generated_tokens: 12,
      });
    }
  });

  it("streams exactly the tokens of transformers.js' greedy text-generation pipeline on text prompts", async () => {
    const encode = await encoderOf(fixtureDir);
    const prompts = [
      'Hello world',
      'The quick brown fox jumps',
      'Ünïcödé, emoji 🤖 and 漢字',
      ' leading space\nnew line',
    ];
    for (const prompt of prompts) {
      const expected = await transformersGreedy(fixtureDir, prompt, 16);
      const { tokens, messages } = await collect(
        worker.client.stream('ModelGenerate', request('gpt', encode(prompt), 16, { eos_token_ids: [50256] })),
      );
      expect(tokens, prompt).toEqual(expected.tokenIds);
      expect(messages.at(-1)?.finish_reason).toBe(expected.tokenIds.at(-1) === 50256 ? 'eos' : 'length');
    }
  });

  it('lets a sequence join a running batch mid-flight; both still get their solo greedy tokens', async () => {
    const [a, b] = [PROMPTS[0]!, PROMPTS[2]!];
    const [expectedA, expectedB] = [
      await reference.greedyUncached(a, 10),
      await reference.greedyUncached(b, 6),
    ];
    const before = await worker.metrics();
    // A pauses after its 2nd token until one sequence waits: B, sent once A runs, joins mid-flight.
    const streamA = follow(
      worker.client.stream('ModelGenerate', request('gpt', a, 10), { metadata: { [PAUSE]: '2:1' } }),
    );
    await streamA.first;
    const resultB = collect(worker.client.stream('ModelGenerate', request('gpt', b, 6)));
    expect((await streamA.done).tokens).toEqual(expectedA);
    expect((await resultB).tokens).toEqual(expectedB);
    const after = await worker.metrics();
    const delta = metricDelta(before, after, 'gpt');
    const { steps, single: singleSteps } = stepsBetween(before, after, 'gpt');
    expect(steps - singleSteps).toBeGreaterThanOrEqual(5); // B's 5 decode steps ran beside A
    expect(delta('modelgate_generation_tokens_total')).toBe(16);
  });

  it('gives 8 concurrent sequences of different lengths, joining and leaving the slots of one or two instances, their solo greedy tokens', async () => {
    const jobs = Array.from({ length: 8 }, (_, i) => ({
      prompt: [...PROMPTS[i % PROMPTS.length]!, ...Array.from({ length: i }, (_, j) => 100 + 37 * j)],
      maxNewTokens: 3 + ((i * 5) % 11),
    }));
    const expected = await Promise.all(
      jobs.map((job) => reference.greedyUncached(job.prompt, job.maxNewTokens)),
    );
    const results = await Promise.all(
      jobs.map((job, i) =>
        collect(
          worker.client.stream(
            'ModelGenerate',
            request(i % 2 === 0 ? 'gpt' : 'pair', job.prompt, job.maxNewTokens),
          ),
        ),
      ),
    );
    results.forEach((result, i) => expect(result.tokens, `sequence ${i}`).toEqual(expected[i]));
  });

  it('ends with finish_reason eos at an eos_token_id, which is reported and counted', async () => {
    const prompt = PROMPTS[1]!;
    const expected = await reference.greedyUncached(prompt, 8);
    const k = expected.findIndex((token, i) => i >= 2 && !expected.slice(0, i).includes(token));
    expect(k).toBeGreaterThan(0);
    const { tokens, messages } = await collect(
      worker.client.stream('ModelGenerate', request('gpt', prompt, 8, { eos_token_ids: [expected[k]!] })),
    );
    expect(tokens).toEqual(expected.slice(0, k + 1));
    expect(messages.at(-1)).toMatchObject({ finish_reason: 'eos', generated_tokens: k + 1 });
    const one = await collect(worker.client.stream('ModelGenerate', request('gpt', prompt, 1)));
    expect(one.messages).toHaveLength(1);
    expect(one.messages[0]).toMatchObject({ token_ids: [expected[0]], finish_reason: 'length' });
  });

  it('samples reproducibly with a seed, and differently with another seed', async () => {
    const sample = async (prompt: number[], seed: number) =>
      (
        await collect(
          worker.client.stream(
            'ModelGenerate',
            request('gpt', prompt, 10, {
              do_sample: true,
              temperature: 1.5,
              top_k: 0,
              top_p: 1,
              has_seed: true,
              seed,
            }),
          ),
        )
      ).tokens;
    let differs = false;
    for (const prompt of PROMPTS) {
      const [first, again, other] = await Promise.all([
        sample(prompt, 7),
        sample(prompt, 7),
        sample(prompt, 8),
      ]);
      expect(again).toEqual(first);
      if (other.join() !== first.join()) differs = true;
    }
    expect(differs).toBe(true);
  });

  it('on SIGTERM finishes the running sequences before it exits', async () => {
    const expected = await reference.greedyUncached(PROMPTS[2]!, 30);
    const stream = follow(
      worker.client.stream('ModelGenerate', request('gpt', PROMPTS[2]!, 30), { metadata: HOLD_AFTER_FIRST }),
    );
    await stream.first;
    const exited = worker.process.stop('SIGTERM');
    expect((await stream.done).tokens).toEqual(expected);
    expect(await exited).toBe(0);
  });
});
