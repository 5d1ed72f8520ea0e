import { type ServiceError, status } from '@grpc/grpc-js';
import { ensureFixture, getFixtureSpec } from '@modelgate/fixtures';
import {
  DecoderSession,
  type Message,
  type RunningWorker,
  metricValue,
  startWorker,
  waitFor,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HOLD_AFTER_FIRST,
  PAUSE,
  PROMPTS,
  collect,
  failure,
  follow,
  request,
} from './support/generation-stream.js';

/** A prompt of `length` token ids. */
const longPrompt = (length: number): number[] => Array.from({ length }, (_, i) => 100 + ((i * 7) % 900));

describe('worker: ModelGenerate limits, refusals and faults (tiny-gpt2, 256 positions)', () => {
  let worker: RunningWorker;
  let reference: DecoderSession;
  const gauge = async (name: string, model: string): Promise<number> =>
    metricValue(await worker.metrics(), name, { model, version: '1' });

  beforeAll(async () => {
    const fixtureDir = await ensureFixture('tiny-gpt2');
    reference = await DecoderSession.open(fixtureDir, getFixtureSpec('tiny-gpt2'));
    worker = await startWorker([
      {
        name: 'gpt',
        fixture: 'tiny-gpt2',
        task: 'text-generation',
        batching: { maxBatchSize: 4, maxQueueSize: 8 },
      },
      {
        name: 'one',
        fixture: 'tiny-gpt2',
        task: 'text-generation',
        batching: { maxBatchSize: 1, maxQueueSize: 2, maxBatchTokens: 512 },
      },
      // Prepared before preparation recorded the model's positions: nothing refuses a long request.
      {
        name: 'loose',
        fixture: 'tiny-gpt2',
        task: 'text-generation',
        generation: null,
        batching: { maxBatchSize: 4, maxQueueSize: 8 },
      },
      {
        name: 'fragile',
        fixture: 'tiny-gpt2',
        task: 'text-generation',
        batching: { maxBatchSize: 4, maxQueueSize: 8 },
      },
      // A short default deadline, for requests that bring none of their own.
      {
        name: 'brief',
        fixture: 'tiny-gpt2',
        task: 'text-generation',
        batching: { maxBatchSize: 1, defaultTimeoutMs: 800 },
      },
      { name: 'bert', fixture: 'tiny-bert-sst2' },
    ]);
  });

  afterAll(async () => {
    await worker?.stop();
    await reference?.release();
  });

  it('frees the slot of a cancelled sequence: the next one is served and the running gauge goes back to 0', async () => {
    const expected = await reference.greedyUncached(PROMPTS[1]!, 5);
    const streamA = worker.client.stream('ModelGenerate', request('one', PROMPTS[0]!, 200), {
      metadata: HOLD_AFTER_FIRST,
    });
    await follow(streamA).first;
    const resultB = collect(worker.client.stream('ModelGenerate', request('one', PROMPTS[1]!, 5)));
    await waitFor(async () => (await gauge('modelgate_generation_waiting_sequences', 'one')) === 1);
    expect(await gauge('modelgate_generation_running_sequences', 'one')).toBe(1);
    streamA.cancel();
    expect((await resultB).tokens).toEqual(expected);
    await waitFor(async () => (await gauge('modelgate_generation_running_sequences', 'one')) === 0);
    expect(await gauge('modelgate_generation_waiting_sequences', 'one')).toBe(0);
  });

  it('answers RESOURCE_EXHAUSTED when the queue is full while the loop is held', async () => {
    const streamA = worker.client.stream('ModelGenerate', request('one', PROMPTS[0]!, 200), {
      metadata: HOLD_AFTER_FIRST,
    });
    await follow(streamA).first;
    const queued = [1, 2].map(() =>
      collect(worker.client.stream('ModelGenerate', request('one', PROMPTS[1]!, 3))),
    );
    await waitFor(async () => (await gauge('modelgate_generation_waiting_sequences', 'one')) === 2);
    const refused = await failure(worker.client.stream('ModelGenerate', request('one', PROMPTS[1]!, 3)));
    expect(refused.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(refused.details).toMatch(/queue full \(2 of 2 waiting\)/);
    streamA.cancel();
    for (const result of await Promise.all(queued)) expect(result.tokens).toHaveLength(3);
  });

  it('answers DEADLINE_EXCEEDED to a request whose deadline passes while it waits, and mid-stream', async () => {
    const streamA = follow(
      worker.client.stream('ModelGenerate', request('one', PROMPTS[0]!, 200), {
        metadata: HOLD_AFTER_FIRST,
        deadlineMs: 1500,
      }),
    );
    await streamA.first;
    const waiting = await failure(
      worker.client.stream('ModelGenerate', request('one', PROMPTS[1]!, 3), { deadlineMs: 300 }),
    );
    expect(waiting.code).toBe(status.DEADLINE_EXCEEDED);
    expect((await failure(streamA)).code).toBe(status.DEADLINE_EXCEEDED);
    await waitFor(async () => (await gauge('modelgate_generation_running_sequences', 'one')) === 0);
    expect(await gauge('modelgate_generation_waiting_sequences', 'one')).toBe(0);
    // The loop is free again.
    expect(
      (await collect(worker.client.stream('ModelGenerate', request('one', PROMPTS[1]!, 2)))).tokens,
    ).toHaveLength(2);
  });

  it("ends a request that brought no deadline at the model's defaultTimeoutMs, mid-stream", async () => {
    // Held after its first token for good: only a deadline can end it (it hung without one).
    const held = follow(
      worker.client.stream('ModelGenerate', request('brief', PROMPTS[0]!, 200), {
        metadata: HOLD_AFTER_FIRST,
      }),
    );
    await held.first;
    const ended = await failure(held);
    expect(ended.code).toBe(status.DEADLINE_EXCEEDED);
    expect(ended.details).toMatch(/deadline exceeded during generation/);
    await waitFor(async () => (await gauge('modelgate_generation_running_sequences', 'brief')) === 0);
  });

  it('refuses bad requests and the wrong method for the model with clear errors', async () => {
    const refusals: Array<[Message, RegExp]> = [
      [request('gpt', [], 3), /input_ids must hold at least one token id/],
      [request('gpt', [1], 3, { do_sample: true, temperature: 0 }), /temperature must be > 0/],
      [request('gpt', [50257], 3), /input_ids\[0\] must be a token id from 0 to 50256/],
      [request('gpt', [1], 0), /max_new_tokens must be an integer from 1/],
      [request('one', [1, 2, 3], 600), /one:1/],
      [
        request('bert', [101, 102], 3),
        /text-classification model: ModelGenerate serves text-generation and image-to-text models only/,
      ],
    ];
    for (const [body, message] of refusals) {
      const error = await failure(worker.client.stream('ModelGenerate', body));
      expect(error.code, String(message)).toBe(status.INVALID_ARGUMENT);
      expect(error.details).toMatch(message);
    }
    const infer = await worker.client
      .call('ModelInfer', {
        model_name: 'gpt',
        inputs: [{ name: 'input_ids', datatype: 'INT64', shape: [1, 1], contents: { int64_contents: [1] } }],
      })
      .catch((error: ServiceError) => error);
    expect(infer).toMatchObject({ code: status.INVALID_ARGUMENT });
    expect((infer as ServiceError).details).toMatch(/text-generation model: use ModelGenerate/);
    const missing = await failure(worker.client.stream('ModelGenerate', request('nope', [1], 3)));
    expect(missing.code).toBe(status.NOT_FOUND);
  });

  it("refuses a prompt + max_new_tokens beyond the model's positions before it reaches the batch", async () => {
    const refused = await failure(worker.client.stream('ModelGenerate', request('gpt', longPrompt(250), 7)));
    expect(refused.code).toBe(status.INVALID_ARGUMENT);
    expect(refused.details).toMatch(/is 257 tokens, over the model's 256 positions/);
    const fits = await collect(worker.client.stream('ModelGenerate', request('gpt', longPrompt(250), 6)));
    expect(fits.tokens).toHaveLength(6);
  });

  it('fails a sequence that runs past the positions alone: the sequence beside it gets its greedy tokens', async () => {
    const expected = await reference.greedyUncached(PROMPTS[0]!, 12);
    // A waits after its first token until B waits to join, so both share the batch.
    const streamA = follow(
      worker.client.stream('ModelGenerate', request('loose', PROMPTS[0]!, 12), {
        metadata: { [PAUSE]: '1:1' },
      }),
    );
    await streamA.first;
    const streamB = follow(worker.client.stream('ModelGenerate', request('loose', longPrompt(250), 20)));
    const broken = await failure(streamB);
    expect(broken.code).toBe(status.INTERNAL);
    expect(broken.details).toMatch(/generation failed/);
    expect((await streamA.done).tokens).toEqual(expected);
  });

  it('ends the running and the new sequences of a session whose thread dies, at once', async () => {
    const streamA = follow(
      worker.client.stream('ModelGenerate', request('fragile', PROMPTS[0]!, 200), {
        metadata: HOLD_AFTER_FIRST,
      }),
    );
    await streamA.first;
    const streamB = worker.client.stream('ModelGenerate', request('fragile', PROMPTS[1]!, 5), {
      metadata: { 'x-modelgate-test-crash-session': '1' },
    });
    const [a, b] = await Promise.all([failure(streamA), failure(streamB)]);
    for (const error of [a, b]) {
      expect(error.code).toBe(status.INTERNAL);
      expect(error.details).toMatch(/generation failed: the session thread exited/);
    }
    const after = await failure(worker.client.stream('ModelGenerate', request('fragile', PROMPTS[1]!, 2)));
    expect(after.code).toBe(status.UNAVAILABLE);
    expect(after.details).toContain('onnxruntime session lost');
    // The other models serve on.
    expect(
      (await collect(worker.client.stream('ModelGenerate', request('gpt', PROMPTS[1]!, 2)))).tokens,
    ).toHaveLength(2);
  });
});
