// /v1/completions refusals, errors and metrics, with the official openai client (its answers:
// openai-completions.int-spec.ts).
import { type RunningGateway, type RunningWorker, metricValue, startServingPair } from '@modelgate/testing';
import OpenAI, { BadRequestError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PROMPT = 'The quick brown fox';
const MAX_TOKENS = 12;

describe('gateway: /v1/completions refusals, errors and metrics', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let client: OpenAI;

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
          // Prompts up to 10 characters.
          {
            name: 'terse',
            task: 'text-generation',
            routes: [{ model: 'gpt:1', weight: 100, role: 'primary' }],
            preprocessing: { maxInputChars: 10 },
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
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
  });

  it.each([
    [{ suffix: 'the end' }, 'suffix'],
    [{ logprobs: 2, echo: true }, 'logprobs'],
    [{ logprobs: 21 }, 'logprobs'],
    [{ best_of: 3 }, 'best_of'],
    [{ n: 17 }, 'n'],
    [{ presence_penalty: 2.5 }, 'presence_penalty'],
    [{ frequency_penalty: -3 }, 'frequency_penalty'],
    [{ logit_bias: { '50256': -100 } }, 'logit_bias'],
  ])('refuses %j with a 400 invalid_request_error naming the parameter', async (option, param) => {
    const refusal = client.completions.create({ model: 'writer', prompt: PROMPT, ...option });
    await expect(refusal).rejects.toBeInstanceOf(BadRequestError);
    await expect(refusal).rejects.toMatchObject({ status: 400, type: 'invalid_request_error', param });
  });

  it('counts completions, streamed or not, under the endpoint and model, with their tokens; a refusal before routing under none', async () => {
    const counts = async () => {
      const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
      const model = { serving_endpoint: 'writer', model: 'gpt', version: '1' };
      return {
        answered: metricValue(metrics, 'modelgate_requests_total', {
          ...model,
          route: 'primary',
          code: '200',
        }),
        tokens: metricValue(metrics, 'modelgate_generated_tokens_total', model),
        refused: metricValue(metrics, 'modelgate_request_failures_total', {
          serving_endpoint: 'writer',
          model: 'none',
          version: 'none',
          reason: 'INVALID_INPUT',
        }),
      };
    };
    const before = await counts();
    const answer = await client.completions.create({
      model: 'writer',
      prompt: PROMPT,
      max_tokens: MAX_TOKENS,
      temperature: 0,
    });
    const stream = await client.completions.create({
      model: 'writer',
      prompt: PROMPT,
      max_tokens: MAX_TOKENS,
      temperature: 0,
      stream: true,
    });
    for await (const _chunk of stream) {
      // drained: the request counts once the stream ended
    }
    await expect(
      client.completions.create({ model: 'writer', prompt: PROMPT, n: 17 }),
    ).rejects.toBeInstanceOf(BadRequestError);
    const after = await counts();
    expect(after.answered - before.answered).toBe(2);
    expect(after.tokens - before.tokens).toBe(2 * answer.usage!.completion_tokens);
    expect(after.refused - before.refused).toBe(1);
  });

  it('answers a body that is not JSON with 415 in the OpenAI error shape', async () => {
    const response = await fetch(`${gateway.url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({
      error: { code: 'UNSUPPORTED_MEDIA_TYPE', type: 'invalid_request_error', param: null },
    });
  });

  it('names its own fields when the prompt is empty or does not fit the context with max_tokens', async () => {
    await expect(client.completions.create({ model: 'writer', prompt: '' })).rejects.toMatchObject({
      status: 400,
      param: 'prompt',
    });
    const tooLong = client.completions.create({ model: 'writer', prompt: PROMPT, max_tokens: 1000 });
    await expect(tooLong).rejects.toMatchObject({ status: 422, param: 'max_tokens' });
    await expect(tooLong).rejects.toThrow(/max_tokens/);
  });

  it('answers 400 for an endpoint of another task and 404 for an unknown one', async () => {
    await expect(client.completions.create({ model: 'embedder', prompt: PROMPT })).rejects.toMatchObject({
      status: 400,
      param: 'model',
    });
    await expect(client.completions.create({ model: 'nope', prompt: PROMPT })).rejects.toMatchObject({
      status: 404,
    });
  });

  it("refuses top_p with temperature 0 (greedy), and a prompt over the endpoint's maxInputChars with 413", async () => {
    await expect(
      client.completions.create({ model: 'writer', prompt: PROMPT, temperature: 0, top_p: 0.5 }),
    ).rejects.toMatchObject({ status: 400, type: 'invalid_request_error', param: 'top_p' });
    const long = client.completions.create({ model: 'terse', prompt: ['short', PROMPT], max_tokens: 2 });
    await expect(long).rejects.toMatchObject({ status: 413, param: 'prompt' });
    expect(
      (await client.completions.create({ model: 'terse', prompt: 'short', max_tokens: 2 })).choices,
    ).toHaveLength(1);
  });
});
