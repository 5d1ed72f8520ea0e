import { ensureFixture } from '@modelgate/fixtures';
import {
  type RunningGateway,
  type RunningWorker,
  componentValidator,
  startServingPair,
  transformersGreedy,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayOpenApiDocument } from '../src/openapi/gateway-openapi.js';
import { postSse } from './support/sse-client.js';

const PROMPT = 'Hello, my dog is';
const MAX_TOKENS = 10;
const EOS = 50256;

interface TritonEvent {
  model_name: string;
  model_version: string;
  text_output: string;
  finish_reason?: string;
}

describe("gateway: Triton's generate extension (/v2/models/<model>/generate[_stream]) on tiny-gpt2", () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let expected: { text: string; finishReason: 'stop' | 'length' };
  const document = gatewayOpenApiDocument();

  const post = (path: string, body: unknown) =>
    fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** The events of a generate_stream answer, parsed. */
  const streamed = async (path: string, body: unknown) => {
    const stream = await postSse(`${gateway.url}${path}`, body);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    const events: TritonEvent[] = [];
    for await (const event of stream.events) events.push(JSON.parse(event.data) as TritonEvent);
    return events;
  };

  beforeAll(async () => {
    ({ worker, gateway } = await startServingPair(
      [
        { name: 'gpt', fixture: 'tiny-gpt2', task: 'text-generation' },
        { name: 'tensors', fixture: 'tiny-bert-sst2', task: 'raw' },
      ],
      { endpoints: [] },
    ));
    const greedy = await transformersGreedy(await ensureFixture('tiny-gpt2'), PROMPT, MAX_TOKENS);
    expected = { text: greedy.text, finishReason: greedy.tokenIds.at(-1) === EOS ? 'stop' : 'length' };
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
  });

  it('generate answers the transformers.js greedy text, on the newest version and on a named one', async () => {
    for (const path of ['/v2/models/gpt/generate', '/v2/models/gpt/versions/1/generate']) {
      const response = await post(path, {
        text_input: PROMPT,
        parameters: { max_tokens: MAX_TOKENS, temperature: 0 },
      });
      expect(response.status).toBe(200);
      const answer = (await response.json()) as TritonEvent;
      expect(answer).toEqual({
        model_name: 'gpt',
        model_version: '1',
        text_output: expected.text,
        finish_reason: expected.finishReason,
      });
      const validator = componentValidator(document, 'TritonGenerateAnswer');
      expect(validator.validate(answer), validator.errors()).toBe(true);
    }
  });

  it('generate_stream sends SSE deltas that add up to the same text, the last with finish_reason', async () => {
    const events = await streamed('/v2/models/gpt/generate_stream', {
      text_input: PROMPT,
      max_tokens: MAX_TOKENS, // TensorRT-LLM style: a top-level field
    });
    expect(events.length).toBeGreaterThan(1);
    expect(events.map((event) => event.text_output).join('')).toBe(expected.text);
    expect(events.slice(0, -1).every((event) => event.finish_reason === undefined)).toBe(true);
    expect(events.at(-1)?.finish_reason).toBe(expected.finishReason);
    const validator = componentValidator(document, 'TritonGenerateEvent');
    for (const event of events) {
      expect(event).toMatchObject({ model_name: 'gpt', model_version: '1' });
      expect(validator.validate(event), validator.errors()).toBe(true);
    }
  });

  it('generate_stream with stream: false sends the whole text as one event; exclude_input_in_output: false prefixes the prompt', async () => {
    const events = await streamed('/v2/models/gpt/versions/1/generate_stream', {
      text_input: PROMPT,
      parameters: { max_tokens: MAX_TOKENS, stream: false, exclude_input_in_output: false },
    });
    expect(events).toEqual([
      {
        model_name: 'gpt',
        model_version: '1',
        text_output: PROMPT + expected.text,
        finish_reason: expected.finishReason,
      },
    ]);
  });

  it('ends text_output before a stop word', async () => {
    const stop = expected.text
      .slice(Math.floor(expected.text.length / 2))
      .trim()
      .slice(0, 2);
    expect(stop.length).toBe(2);
    const response = await post('/v2/models/gpt/generate', {
      text_input: PROMPT,
      max_tokens: MAX_TOKENS,
      stop_words: [stop],
    });
    expect(await response.json()).toMatchObject({
      text_output: expected.text.slice(0, expected.text.indexOf(stop)),
      finish_reason: 'stop',
    });
  });

  it.each([
    [{ text_input: PROMPT, bad_words: ['dog'] }, /'bad_words' is not supported/],
    [{ text_input: PROMPT, parameters: { beam_width: 4 } }, /'beam_width' is not supported/],
    [{ text_input: PROMPT, parameters: { stream: true } }, /generate_stream/],
    [{ text_input: PROMPT, max_tokens: 0 }, /^max_tokens: /],
    [{ text_input: PROMPT, temperature: 1, parameters: { temperature: 1 } }, /both at the top level/],
    [{ parameters: { max_tokens: 4 } }, /^text_input: /],
  ])('refuses %j with a 400 in the KServe error shape', async (body, message) => {
    const response = await post('/v2/models/gpt/generate', body);
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { error: unknown };
    expect(Object.keys(answer)).toEqual(['error']);
    expect(answer.error).toMatch(message);
  });

  it('names its own fields when the prompt is empty or does not fit the context with max_tokens', async () => {
    const empty = await post('/v2/models/gpt/generate', { text_input: '' });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: expect.stringMatching(/^text_input: /) as unknown });
    const tooLong = await post('/v2/models/gpt/generate_stream', { text_input: PROMPT, max_tokens: 1000 });
    expect(tooLong.status).toBe(422);
    expect(tooLong.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await tooLong.json()).toEqual({ error: expect.stringMatching(/max_tokens/) as unknown });
  });

  it('answers 404 for an unknown model or version and 400 for a model that does not generate', async () => {
    for (const path of ['/v2/models/nope/generate', '/v2/models/gpt/versions/9/generate_stream']) {
      const response = await post(path, { text_input: PROMPT });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: expect.any(String) as unknown });
    }
    const response = await post('/v2/models/tensors/generate', { text_input: PROMPT });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: expect.stringMatching(/text-generation/) as unknown });
  });
});
