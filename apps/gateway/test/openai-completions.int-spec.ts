import { ensureFixture } from '@modelgate/fixtures';
import {
  type RunningGateway,
  type RunningWorker,
  componentValidator,
  startServingPair,
  transformersGreedy,
} from '@modelgate/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayOpenApiDocument } from '../src/openapi/gateway-openapi.js';
import { postSse } from './support/sse-client.js';

const PROMPT = 'The quick brown fox';
const OTHER_PROMPT = 'Zürich is a city where';
const MAX_TOKENS = 12;
const EOS = 50256;

// The answers of /v1/completions (its refusals and metrics: openai-completions-refusals.int-spec.ts).
describe('gateway: OpenAI-compatible POST /v1/completions on tiny-gpt2, called with the official openai client', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let client: OpenAI;
  /** transformers.js greedy text and how it ended, the reference every answer is held to. */
  let expected: { text: string; tokens: number; finishReason: 'stop' | 'length' };
  let other: { text: string; tokens: number; finishReason: 'stop' | 'length' };
  const document = gatewayOpenApiDocument();

  beforeAll(async () => {
    ({ worker, gateway } = await startServingPair(
      [
        { name: 'gpt', fixture: 'tiny-gpt2', task: 'text-generation' },
        { name: 'embed', fixture: 'tiny-bert-embedder', task: 'feature-extraction' },
      ],
      {
        endpoints: [
          {
            name: 'writer',
            task: 'text-generation',
            routes: [{ model: 'gpt:1', weight: 100, role: 'primary' }],
          },
          {
            name: 'embedder',
            task: 'feature-extraction',
            routes: [{ model: 'embed:1', weight: 100, role: 'primary' }],
          },
        ],
      },
    ));
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const fixture = await ensureFixture('tiny-gpt2');
    const reference = async (prompt: string) => {
      const greedy = await transformersGreedy(fixture, prompt, MAX_TOKENS);
      return {
        text: greedy.text,
        tokens: greedy.tokenIds.length,
        finishReason: greedy.tokenIds.at(-1) === EOS ? ('stop' as const) : ('length' as const),
      };
    };
    expected = await reference(PROMPT);
    other = await reference(OTHER_PROMPT);
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
  });

  it('answers the transformers.js greedy text at temperature 0, with usage, in the documented shape', async () => {
    const answer = await client.completions.create({
      model: 'writer',
      prompt: PROMPT,
      max_tokens: MAX_TOKENS,
      temperature: 0,
    });
    expect(answer.id).toMatch(/^cmpl-/);
    expect(answer.object).toBe('text_completion');
    expect(answer.model).toBe('writer');
    expect(answer.choices).toEqual([
      { text: expected.text, index: 0, finish_reason: expected.finishReason, logprobs: null },
    ]);
    expect(answer.usage?.completion_tokens).toBe(expected.tokens);
    expect(answer.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(answer.usage?.total_tokens).toBe(answer.usage!.prompt_tokens + expected.tokens);
    const validator = componentValidator(document, 'Completion');
    expect(validator.validate(answer), validator.errors()).toBe(true);
  });

  it('streams deltas that add up to the same text, the finish reason last, then the usage chunk', async () => {
    const stream = await client.completions.create({
      model: 'writer',
      prompt: [PROMPT],
      max_tokens: MAX_TOKENS,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const withChoices = chunks.filter((chunk) => chunk.choices.length > 0);
    expect(withChoices.map((chunk) => chunk.choices[0]!.text).join('')).toBe(expected.text);
    expect(withChoices.slice(0, -1).every((chunk) => chunk.choices[0]!.finish_reason === null)).toBe(true);
    expect(withChoices.at(-1)!.choices[0]!.finish_reason).toBe(expected.finishReason);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage?.completion_tokens).toBe(expected.tokens);
  });

  it('answers one choice per prompt of an array, each its own greedy text, streamed or not', async () => {
    const answer = await client.completions.create({
      model: 'writer',
      prompt: [PROMPT, OTHER_PROMPT],
      max_tokens: MAX_TOKENS,
      temperature: 0,
    });
    expect(answer.choices).toEqual([
      { text: expected.text, index: 0, finish_reason: expected.finishReason, logprobs: null },
      { text: other.text, index: 1, finish_reason: other.finishReason, logprobs: null },
    ]);
    expect(answer.usage?.completion_tokens).toBe(expected.tokens + other.tokens);
    const stream = await client.completions.create({
      model: 'writer',
      prompt: [PROMPT, OTHER_PROMPT],
      max_tokens: MAX_TOKENS,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
    const texts = ['', ''];
    const finishes: (string | null)[] = [null, null];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        texts[choice.index] += choice.text;
        if (choice.finish_reason !== null) finishes[choice.index] = choice.finish_reason;
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(texts).toEqual([expected.text, other.text]);
    expect(finishes).toEqual([expected.finishReason, other.finishReason]);
    expect(usage?.completion_tokens).toBe(expected.tokens + other.tokens);
  });

  it('frames the stream as data events ended by data: [DONE], each chunk in the documented shape', async () => {
    const stream = await postSse(`${gateway.url}/v1/completions`, {
      model: 'writer',
      prompt: PROMPT,
      max_tokens: MAX_TOKENS,
      temperature: 0,
      stream: true,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(stream.headers['x-modelgate-model']).toBe('gpt:1');
    expect(stream.headers['x-request-id']).toBeTruthy();
    const events = [];
    for await (const event of stream.events) events.push(event);
    expect(events.every((event) => event.event === 'message')).toBe(true); // unnamed events only
    expect(events.at(-1)?.data).toBe('[DONE]');
    const validator = componentValidator(document, 'CompletionChunk');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data) as { usage?: unknown });
    for (const chunk of chunks) expect(validator.validate(chunk), validator.errors()).toBe(true);
    expect(chunks.every((chunk) => !('usage' in chunk))).toBe(true);
  });

  it('answers the same text on /serve of the endpoint, as JSON and as events, in the shapes the OpenAPI document gives', async () => {
    const body = { text: PROMPT, parameters: { max_new_tokens: MAX_TOKENS } };
    const answer = await gateway.post('/serve/writer', body);
    expect(answer.status).toBe(200);
    const serveAnswer = componentValidator(document, 'ServeAnswer');
    expect(serveAnswer.validate(answer.body), serveAnswer.errors()).toBe(true);
    expect(
      (answer.body as { predictions: { generated_text: string }[] }).predictions[0]?.generated_text,
    ).toBe(expected.text);
    const stream = await postSse(`${gateway.url}/serve/writer`, { ...body, stream: true });
    expect(stream.status).toBe(200);
    const serveEvent = componentValidator(document, 'ServeEvent');
    const events = [];
    for await (const event of stream.events) events.push(event);
    for (const event of events) {
      expect(serveEvent.validate(JSON.parse(event.data)), serveEvent.errors()).toBe(true);
    }
    expect(events.at(-1)?.event).toBe('end');
    expect((JSON.parse(events.at(-1)!.data) as { generated_text: string }).generated_text).toBe(
      expected.text,
    );
  });

  it('echoes the prompt and ends before a stop string, which counts as "stop"', async () => {
    const echoed = await client.completions.create({
      model: 'writer',
      prompt: PROMPT,
      max_tokens: MAX_TOKENS,
      temperature: 0,
      echo: true,
    });
    expect(echoed.choices[0]!.text).toBe(PROMPT + expected.text);
    // A stop string from the middle of the greedy text: the answer is what comes before it.
    const stop = expected.text
      .slice(Math.floor(expected.text.length / 2))
      .trim()
      .slice(0, 2);
    expect(stop.length).toBe(2);
    const stopped = await client.completions.create({
      model: 'writer',
      prompt: PROMPT,
      max_tokens: MAX_TOKENS,
      temperature: 0,
      stop: [stop, 'a string that never comes'],
    });
    expect(stopped.choices[0]!.text).toBe(expected.text.slice(0, expected.text.indexOf(stop)));
    expect(stopped.choices[0]!.finish_reason).toBe('stop');
  });

  it('answers n choices per prompt, choice p × n + j for prompt p', async () => {
    const answer = await client.completions.create({
      model: 'writer',
      prompt: [PROMPT, OTHER_PROMPT],
      max_tokens: MAX_TOKENS,
      temperature: 0,
      n: 2,
      echo: true,
    });
    expect(answer.choices.map((choice) => [choice.index, choice.text])).toEqual([
      [0, PROMPT + expected.text],
      [1, PROMPT + expected.text],
      [2, OTHER_PROMPT + other.text],
      [3, OTHER_PROMPT + other.text],
    ]);
    expect(answer.usage?.completion_tokens).toBe(2 * (expected.tokens + other.tokens));
  });

  it('samples reproducibly with a seed', async () => {
    const sample = () =>
      client.completions.create({
        model: 'writer',
        prompt: PROMPT,
        max_tokens: MAX_TOKENS,
        temperature: 1,
        seed: 1234,
      });
    const [first, second] = [await sample(), await sample()];
    expect(second.choices[0]!.text).toBe(first.choices[0]!.text);
  });

  it('carries the repetition and n-gram processors from /serve and from the completions body to the worker', async () => {
    // A prompt on which the fixture's greedy text repeats itself, so each processor changes it.
    const prompt = '\n';
    const fixture = await ensureFixture('tiny-gpt2');
    const plain = await transformersGreedy(fixture, prompt, 16);
    const ngram = await transformersGreedy(fixture, prompt, 16, { no_repeat_ngram_size: 2 });
    const repetition = await transformersGreedy(fixture, prompt, 16, { repetition_penalty: 1.5 });
    expect(ngram.text).not.toBe(plain.text);
    expect(repetition.text).not.toBe(plain.text);
    const served = await gateway.post('/serve/writer', {
      text: prompt,
      parameters: { max_new_tokens: 16, no_repeat_ngram_size: 2 },
    });
    expect(
      (served.body as { predictions: { generated_text: string }[] }).predictions[0]?.generated_text,
    ).toBe(ngram.text);
    // vLLM's repetition_penalty extension of the OpenAI body (the openai client passes extra fields through).
    const completed = await client.completions.create({
      model: 'writer',
      prompt,
      max_tokens: 16,
      temperature: 0,
      repetition_penalty: 1.5,
    } as OpenAI.CompletionCreateParamsNonStreaming);
    expect(completed.choices[0]!.text).toBe(repetition.text);
    const refused = await gateway.post('/serve/writer', {
      text: prompt,
      parameters: { max_new_tokens: 4, min_new_tokens: 5 },
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('min_new_tokens');
  });
});
