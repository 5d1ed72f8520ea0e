import { type ClientReadableStream, type ServiceError, status } from '@grpc/grpc-js';
import { loadTokenizerFromDir } from '@modelgate/processing';
import {
  DecoderSession,
  type Message,
  type RunningWorker,
  ensureFixture,
  getFixtureSpec,
  metricValue,
  startWorker,
  transformersGreedy,
  waitFor,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PAUSE = 'x-modelgate-test-generation-pause';
/** Pauses the loop after the sequence's first token until it is cancelled (99 never wait). */
const HOLD_AFTER_FIRST = { [PAUSE]: '1:99' };

const PROMPTS = [[464, 2068, 7586, 21831], [15496], [40, 588, 257, 1332, 13, 632, 318], [50256, 1212]];

interface Streamed {
  tokens: number[];
  messages: Message[];
}

interface Followed {
  /** The first message (rejects when the stream fails before one). */
  first: Promise<Message>;
  /** Every message once the stream ends (rejects with the grpc-js ServiceError of a failed call). */
  done: Promise<Streamed>;
}

/** Follows a ModelGenerate stream from its first message to its end. */
function follow(stream: ClientReadableStream<Message>): Followed {
  const messages: Message[] = [];
  let firstSeen: (message: Message) => void = () => undefined;
  let firstFailed: (error: unknown) => void = () => undefined;
  const first = new Promise<Message>((resolve, reject) => {
    firstSeen = resolve;
    firstFailed = reject;
  });
  const done = new Promise<Streamed>((resolve, reject) => {
    stream.on('data', (message: Message) => {
      messages.push(message);
      if (messages.length === 1) firstSeen(message);
    });
    stream.on('error', (error) => {
      firstFailed(error);
      reject(error);
    });
    stream.on('end', () => resolve({ tokens: messages.flatMap((m) => m.token_ids as number[]), messages }));
  });
  first.catch(() => undefined);
  done.catch(() => undefined);
  return { first, done };
}

/** Reads a ModelGenerate stream to its end. */
const collect = (stream: ClientReadableStream<Message>): Promise<Streamed> => follow(stream).done;

/** The gRPC error a stream ends with. */
async function failure(stream: ClientReadableStream<Message> | Followed): Promise<ServiceError> {
  try {
    await ('done' in stream ? stream.done : collect(stream));
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error('the stream ended without an error');
}

/** The fixture's own tokenizer.json, through the gateway's tokenizer adapter. */
async function encoderOf(fixtureDir: string): Promise<(text: string) => number[]> {
  const tokenizer = await loadTokenizerFromDir(fixtureDir);
  return (text) => tokenizer.tokenize(text);
}

const request = (model: string, inputIds: number[], maxNewTokens: number, extra: Message = {}): Message => ({
  model_name: model,
  input_ids: inputIds,
  max_new_tokens: maxNewTokens,
  ...extra,
});

describe('worker: ModelGenerate with continuous batching over onnxruntime (tiny-gpt2)', () => {
  let worker: RunningWorker;
  let reference: DecoderSession;
  let fixtureDir: string;
  const gauge = async (name: string, model: string): Promise<number> =>
    metricValue(await worker.metrics(), name, { model, version: '1' });

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
        name: 'one',
        fixture: 'tiny-gpt2',
        task: 'text-generation',
        batching: { maxBatchSize: 1, maxQueueSize: 2, maxBatchTokens: 512 },
      },
      {
        name: 'pair',
        fixture: 'tiny-gpt2',
        task: 'text-generation',
        instances: 2,
        batching: { maxBatchSize: 2, maxQueueSize: 8 },
      },
      { name: 'bert', fixture: 'tiny-bert-sst2' },
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
    const delta = (name: string, labels: Record<string, string> = {}) =>
      metricValue(after, name, { model: 'gpt', version: '1', ...labels }) -
      metricValue(before, name, { model: 'gpt', version: '1', ...labels });
    const steps = delta('modelgate_generation_step_batch_size_count');
    const singleSteps = delta('modelgate_generation_step_batch_size_bucket', { le: '1' });
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
      jobs.map((job) =>
        collect(worker.client.stream('ModelGenerate', request('gpt', job.prompt, job.maxNewTokens))),
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

  it('refuses bad requests and the wrong method for the model with clear errors', async () => {
    const refusals: Array<[Message, RegExp]> = [
      [request('gpt', [], 3), /input_ids must hold at least one token id/],
      [request('gpt', [1], 3, { do_sample: true, temperature: 0 }), /temperature must be > 0/],
      [request('gpt', [50257], 3), /input_ids\[0\] must be a token id from 0 to 50256/],
      [request('gpt', [1], 0), /max_new_tokens must be an integer from 1/],
      [request('one', [1, 2, 3], 600), /one:1/],
      [
        request('bert', [101, 102], 3),
        /text-classification model: ModelGenerate serves text-generation models only/,
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
