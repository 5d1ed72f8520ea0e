// The processors that read a sequence's history (repetition_penalty, no_repeat_ngram_size,
// min_new_tokens: Hugging Face's; frequency_penalty and presence_penalty: OpenAI's), run by the
// worker's continuous batcher over onnxruntime. Hugging Face's are held to transformers.js'
// generate with the same settings; OpenAI's, which transformers.js lacks, to a cache-free greedy
// reference that applies OpenAI's documented formula to the model's own logits.
import { status } from '@grpc/grpc-js';
import { ensureFixture, getFixtureSpec } from '@modelgate/fixtures';
import {
  DecoderSession,
  type Message,
  type RunningWorker,
  startWorker,
  transformersGreedy,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, encoderOf, failure, request } from './support/generation-stream.js';

const EOS = 50256;
const TOKENS = 16;

describe('worker: ModelGenerate with repetition, n-gram, length and OpenAI penalties (tiny-gpt2)', () => {
  let worker: RunningWorker;
  let reference: DecoderSession;
  let fixtureDir: string;
  let encode: (text: string) => number[];

  beforeAll(async () => {
    fixtureDir = await ensureFixture('tiny-gpt2');
    encode = await encoderOf(fixtureDir);
    reference = await DecoderSession.open(fixtureDir, getFixtureSpec('tiny-gpt2'));
    worker = await startWorker([
      {
        name: 'gpt',
        fixture: 'tiny-gpt2',
        task: 'text-generation',
        batching: { maxBatchSize: 4, maxQueueSize: 8 },
      },
    ]);
  });

  afterAll(async () => {
    await worker?.stop();
    await reference?.release();
  });

  const generate = async (prompt: string, extra: Record<string, unknown>, tokens = TOKENS) =>
    (await collect(worker.client.stream('ModelGenerate', request('gpt', encode(prompt), tokens, extra))))
      .tokens;

  // Prompts on which the fixture's greedy text repeats itself, so each processor changes it.
  it.each([
    ['\n', { repetition_penalty: 1.5 }],
    ['The end.', { repetition_penalty: 1.5 }],
    ['\n', { repetition_penalty: 0.7 }],
    ['\n', { no_repeat_ngram_size: 2 }],
    ['\n', { no_repeat_ngram_size: 1 }],
  ])(
    '%j with %j: the tokens of transformers.js generate with the same settings',
    async (prompt, settings) => {
      const plain = await transformersGreedy(fixtureDir, prompt, TOKENS);
      const expected = await transformersGreedy(fixtureDir, prompt, TOKENS, settings);
      expect(expected.tokenIds).not.toEqual(plain.tokenIds);
      expect(await generate(prompt, { eos_token_ids: [EOS], ...settings })).toEqual(expected.tokenIds);
    },
  );

  it('min_new_tokens holds the end-of-sequence token back, as transformers.js does', async () => {
    const prompt = 'The quick brown fox';
    // The fixture never ends on <|endoftext|> here: its second greedy token stands in as the eos.
    const [, second = -1] = (await transformersGreedy(fixtureDir, prompt, 4)).tokenIds;
    expect(await generate(prompt, { eos_token_ids: [second] })).toHaveLength(2);
    const expected = await transformersGreedy(fixtureDir, prompt, TOKENS, {
      eos_token_id: second,
      min_new_tokens: 5,
    });
    expect(expected.tokenIds.length).toBeGreaterThan(2);
    expect(await generate(prompt, { eos_token_ids: [second], min_new_tokens: 5 })).toEqual(expected.tokenIds);
  });

  it("frequency_penalty and presence_penalty follow OpenAI's formula on the model's own logits", async () => {
    const prompt = '\n';
    const [frequency, presence] = [1.5, 0.5];
    const plain = await reference.greedyUncached(encode(prompt), TOKENS);
    const expected = await reference.greedyProcessed(encode(prompt), TOKENS, (row, generated) => {
      const counts = new Map<number, number>();
      for (const id of generated) counts.set(id, (counts.get(id) ?? 0) + 1);
      for (const [id, count] of counts) row[id] = row[id]! - count * frequency - presence;
    });
    expect(expected).not.toEqual(plain);
    const tokens = await generate(prompt, {
      eos_token_ids: [EOS],
      frequency_penalty: frequency,
      presence_penalty: presence,
    });
    expect(tokens).toEqual(expected);
  });

  it('keeps each sequence to its own processors when they decode in one batch', async () => {
    const prompt = '\n';
    const [plain, penalized] = await Promise.all([
      generate(prompt, { eos_token_ids: [EOS] }),
      generate(prompt, { eos_token_ids: [EOS], repetition_penalty: 1.5 }),
    ]);
    expect(plain).toEqual((await transformersGreedy(fixtureDir, prompt, TOKENS)).tokenIds);
    expect(penalized).toEqual(
      (await transformersGreedy(fixtureDir, prompt, TOKENS, { repetition_penalty: 1.5 })).tokenIds,
    );
  });

  it("reports each token's logprob and top alternatives from the model's own logits, before the penalties", async () => {
    const prompt = '\n';
    const [frequency, top] = [1.5, 3];
    // The reference: each step's raw row, log-softmaxed in doubles, then OpenAI's penalty for the pick.
    const rows: number[][] = [];
    const expected = await reference.greedyProcessed(encode(prompt), TOKENS, (row, generated) => {
      const max = Math.max(...row);
      const norm = max + Math.log(row.reduce((sum, logit) => sum + Math.exp(logit - max), 0));
      rows.push(Array.from(row, (logit) => logit - norm));
      const counts = new Map<number, number>();
      for (const id of generated) counts.set(id, (counts.get(id) ?? 0) + 1);
      for (const [id, count] of counts) row[id] = row[id]! - count * frequency;
    });
    const { messages, tokens } = await collect(
      worker.client.stream(
        'ModelGenerate',
        request('gpt', encode(prompt), TOKENS, {
          eos_token_ids: [EOS],
          frequency_penalty: frequency,
          logprobs: true,
          top_logprobs: top,
        }),
      ),
    );
    expect(tokens).toEqual(expected);
    const logprobs = messages.flatMap((message) => message.logprobs as Message[]);
    expect(logprobs).toHaveLength(tokens.length);
    logprobs.forEach((entry, step) => {
      const row = rows[step]!;
      expect(entry.logprob ?? 0).toBeCloseTo(row[tokens[step]!]!, 4);
      const best = [...row.keys()].sort((a, b) => row[b]! - row[a]! || a - b).slice(0, top);
      expect((entry.top_ids as number[]).map(Number)).toEqual(best);
      (entry.top_logprobs as number[]).forEach((value, k) => expect(value).toBeCloseTo(row[best[k]!]!, 4));
    });
    // The penalty changed the picks, so some step took a token the raw row did not rank first.
    expect(tokens.some((token, step) => token !== Number((logprobs[step]!.top_ids as number[])[0]))).toBe(
      true,
    );
  });

  it('sends no logprobs unless asked', async () => {
    const { messages } = await collect(
      worker.client.stream('ModelGenerate', request('gpt', encode('Hi'), 4, { eos_token_ids: [EOS] })),
    );
    for (const message of messages) expect(message.logprobs ?? []).toEqual([]);
  });

  it.each([
    [{ repetition_penalty: -1 }, 'repetition_penalty'],
    [{ frequency_penalty: 2.5 }, 'frequency_penalty'],
    [{ presence_penalty: -3 }, 'presence_penalty'],
    [{ min_new_tokens: TOKENS + 1 }, 'min_new_tokens'],
  ])('refuses %j naming the field', async (settings, field) => {
    const error = await failure(
      worker.client.stream('ModelGenerate', request('gpt', encode('Hi'), TOKENS, settings)),
    );
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(error.details).toContain(field);
  });
});
