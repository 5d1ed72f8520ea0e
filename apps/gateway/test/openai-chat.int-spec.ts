import { ensureFixture } from '@modelgate/fixtures';
import {
  type RunningGateway,
  type RunningWorker,
  componentValidator,
  startServingPair,
  transformersChatGreedy,
} from '@modelgate/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayOpenApiDocument } from '../src/openapi/gateway-openapi.js';

const MESSAGES = [
  { role: 'system' as const, content: 'You answer briefly.' },
  { role: 'user' as const, content: 'Where is Zürich?' },
];
const MAX_TOKENS = 12;
/** tiny-gpt2-chat's eos ids: <|im_end|>, <|endoftext|>. */
const EOS = [50258, 50256];
/** tiny-gpt2-chat's n_positions. */
const POSITIONS = 256;
/** The `brief` endpoint's own max_new_tokens. */
const BRIEF_TOKENS = 5;
/** tiny-gpt2-chat's generation_config.json max_new_tokens. */
const MODEL_MAX_NEW_TOKENS = 24;

/** The error the openai client raised for a refused call. */
async function refusal(call: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const error: unknown = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OpenAI.APIError);
  return error as InstanceType<typeof OpenAI.APIError>;
}

describe('gateway: OpenAI-compatible POST /v1/chat/completions and GET /v1/models, called with the official openai client', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let client: OpenAI;
  /** transformers.js' greedy reply to MESSAGES (its chat template, its generate), the reference. */
  let expected: { text: string; tokens: number; promptTokens: number; finishReason: 'stop' | 'length' };
  const document = gatewayOpenApiDocument();

  beforeAll(async () => {
    ({ worker, gateway } = await startServingPair(
      [
        { name: 'chat', fixture: 'tiny-gpt2-chat', task: 'text-generation' },
        // The same model as preparation would record it without generation_config.json defaults.
        {
          name: 'plainchat',
          fixture: 'tiny-gpt2-chat',
          task: 'text-generation',
          generation: { maxPositions: POSITIONS, vocabSize: 50259 },
        },
        { name: 'gpt', fixture: 'tiny-gpt2', task: 'text-generation' },
        { name: 'sst2', fixture: 'tiny-bert-sst2', task: 'text-classification' },
      ],
      {
        endpoints: [
          {
            name: 'assistant',
            task: 'text-generation',
            routes: [{ model: 'chat:1', weight: 100, role: 'primary' }],
          },
          {
            name: 'writer',
            task: 'text-generation',
            routes: [{ model: 'gpt:1', weight: 100, role: 'primary' }],
          },
          {
            name: 'plain',
            task: 'text-generation',
            routes: [{ model: 'plainchat:1', weight: 100, role: 'primary' }],
          },
          {
            name: 'brief',
            task: 'text-generation',
            routes: [{ model: 'chat:1', weight: 100, role: 'primary' }],
            // The endpoint's own default, over the model's generation_config.json max_new_tokens 24.
            generation: { max_new_tokens: BRIEF_TOKENS },
          },
          {
            name: 'sentiment',
            task: 'text-classification',
            routes: [{ model: 'sst2:1', weight: 100, role: 'primary' }],
          },
        ],
      },
    ));
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const reference = await transformersChatGreedy(
      await ensureFixture('tiny-gpt2-chat'),
      MESSAGES,
      MAX_TOKENS,
    );
    expected = {
      text: reference.text,
      tokens: reference.tokenIds.length,
      promptTokens: reference.promptTokens,
      finishReason: EOS.includes(reference.tokenIds.at(-1) ?? -1) ? 'stop' : 'length',
    };
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
  });

  it("answers transformers.js' greedy reply to the conversation (the model's chat template), with usage, in the documented shape", async () => {
    const answer = await client.chat.completions.create({
      model: 'assistant',
      messages: MESSAGES,
      max_completion_tokens: MAX_TOKENS,
      temperature: 0,
    });
    // A reference worth matching: tokens were generated, and they are not all special.
    expect(expected.tokens).toBeGreaterThan(1);
    expect(expected.text.trim()).not.toBe('');
    expect(answer.id).toMatch(/^chatcmpl-/);
    expect(answer.object).toBe('chat.completion');
    expect(answer.model).toBe('assistant');
    expect(answer.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: expected.text },
        finish_reason: expected.finishReason,
        logprobs: null,
      },
    ]);
    expect(answer.usage).toEqual({
      prompt_tokens: expected.promptTokens,
      completion_tokens: expected.tokens,
      total_tokens: expected.promptTokens + expected.tokens,
    });
    const validator = componentValidator(document, 'ChatCompletion');
    expect(validator.validate(answer), validator.errors()).toBe(true);
    // The older max_tokens and text parts read the same.
    const parts = await client.chat.completions.create({
      model: 'assistant',
      messages: [MESSAGES[0]!, { role: 'user', content: [{ type: 'text', text: MESSAGES[1]!.content }] }],
      max_tokens: MAX_TOKENS,
      temperature: 0,
    });
    expect(parts.choices[0]?.message.content).toBe(expected.text);
  });

  it('streams the role, then deltas that add up to the same reply, the finish reason last, then the usage chunk', async () => {
    const stream = await client.chat.completions.create({
      model: 'assistant',
      messages: MESSAGES,
      max_completion_tokens: MAX_TOKENS,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const validator = componentValidator(document, 'ChatCompletionChunk');
    for (const chunk of chunks) expect(validator.validate(chunk), validator.errors()).toBe(true);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    const withChoices = chunks.filter((chunk) => chunk.choices.length > 0);
    expect(withChoices[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(withChoices.map((chunk) => chunk.choices[0]!.delta.content ?? '').join('')).toBe(expected.text);
    expect(withChoices.slice(0, -1).every((chunk) => chunk.choices[0]!.finish_reason === null)).toBe(true);
    expect(withChoices.at(-1)!.choices[0]).toEqual({
      index: 0,
      delta: {},
      finish_reason: expected.finishReason,
      logprobs: null,
    });
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage?.completion_tokens).toBe(expected.tokens);
    expect(last.usage?.prompt_tokens).toBe(expected.promptTokens);
  });

  it("without max_completion_tokens, takes the model's generation_config.json max_new_tokens, else the rest of its context", async () => {
    // tiny-gpt2-chat ships max_new_tokens 24, repetition_penalty and no_repeat_ngram_size: transformers.js applies them too.
    const answer = await client.chat.completions.create({
      model: 'assistant',
      messages: MESSAGES,
      temperature: 0,
    });
    const reference = await transformersChatGreedy(
      await ensureFixture('tiny-gpt2-chat'),
      MESSAGES,
      MODEL_MAX_NEW_TOKENS,
    );
    expect(answer.choices[0]?.message.content).toBe(reference.text);
    expect(answer.usage?.completion_tokens).toBe(reference.tokenIds.length);
    // The same model registered without those defaults: the reply may take the rest of the context.
    const plain = await client.chat.completions.create({
      model: 'plain',
      messages: MESSAGES,
      temperature: 0,
    });
    const usage = plain.usage!;
    expect(usage.prompt_tokens).toBe(expected.promptTokens);
    if (plain.choices[0]?.finish_reason === 'length') expect(usage.total_tokens).toBe(POSITIONS);
    else expect(usage.total_tokens).toBeLessThanOrEqual(POSITIONS);
    expect(usage.completion_tokens).toBeGreaterThan(MODEL_MAX_NEW_TOKENS);
  });

  it("takes the endpoint's decoding defaults over the model file's, and the request's over both", async () => {
    const reference = await transformersChatGreedy(
      await ensureFixture('tiny-gpt2-chat'),
      MESSAGES,
      BRIEF_TOKENS,
    );
    expect(reference.tokenIds).toHaveLength(BRIEF_TOKENS);
    const brief = await client.chat.completions.create({
      model: 'brief',
      messages: MESSAGES,
      temperature: 0,
    });
    expect(brief.choices[0]?.message.content).toBe(reference.text);
    expect(brief.usage?.completion_tokens).toBe(BRIEF_TOKENS);
    expect(brief.choices[0]?.finish_reason).toBe('length');
    const asked = await client.chat.completions.create({
      model: 'brief',
      messages: MESSAGES,
      temperature: 0,
      max_completion_tokens: MAX_TOKENS,
    });
    expect(asked.choices[0]?.message.content).toBe(expected.text);
  });

  it('answers n choices: identical when greedy, seed + i for choice i when sampled, streamed by index', async () => {
    const greedy = await client.chat.completions.create({
      model: 'assistant',
      messages: MESSAGES,
      max_completion_tokens: MAX_TOKENS,
      temperature: 0,
      n: 2,
    });
    expect(greedy.choices.map((choice) => [choice.index, choice.message.content])).toEqual([
      [0, expected.text],
      [1, expected.text],
    ]);
    expect(greedy.usage?.completion_tokens).toBe(2 * expected.tokens);
    const sampled = (seed: number, n?: number) =>
      client.chat.completions.create({
        model: 'assistant',
        messages: MESSAGES,
        max_completion_tokens: MAX_TOKENS,
        temperature: 1.5,
        seed,
        ...(n === undefined ? {} : { n }),
      });
    const [pair, first, second] = [await sampled(7, 2), await sampled(7), await sampled(8)];
    expect(pair.choices.map((choice) => choice.message.content)).toEqual([
      first.choices[0]?.message.content,
      second.choices[0]?.message.content,
    ]);
    const stream = await client.chat.completions.create({
      model: 'assistant',
      messages: MESSAGES,
      max_completion_tokens: MAX_TOKENS,
      temperature: 1.5,
      seed: 7,
      n: 2,
      stream: true,
    });
    const texts = ['', ''];
    const roles: (string | undefined)[] = [];
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        texts[choice.index] += choice.delta.content ?? '';
        if (choice.delta.role) roles[choice.index] = choice.delta.role;
      }
    }
    expect(roles).toEqual(['assistant', 'assistant']);
    expect(texts).toEqual(pair.choices.map((choice) => choice.message.content));
  });

  it('refuses a model without a chat template with a 400 that names the fix', async () => {
    const error = await refusal(
      client.chat.completions.create({ model: 'writer', messages: MESSAGES, max_completion_tokens: 4 }),
    );
    expect(error.status).toBe(400);
    expect(error.param).toBe('messages');
    expect(error.message).toContain('has no chat template (tokenizer_config.json chat_template)');
    expect(error.message).toContain('/v1/completions');
  });

  it('refuses what it does not implement, naming the field, and an endpoint of another task', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ top_logprobs: 2 }, 'top_logprobs'],
      [{ logprobs: true, top_logprobs: 21 }, 'top_logprobs'],
      [{ n: 17 }, 'n'],
      [{ tools: [{ type: 'function', function: { name: 'f' } }] }, 'tools'],
      [{ response_format: { type: 'json_object' } }, 'response_format'],
      [{ messages: [{ role: 'tool', content: 'x', tool_call_id: 'a' }] }, 'messages[0].tool_call_id'],
      [{ messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].role'],
      [
        { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] },
        'messages[0].content[0]',
      ],
      [{ messages: [] }, 'messages'],
      [{ max_tokens: 4, max_completion_tokens: 4 }, 'max_tokens'],
      [{ best_of: 2 }, 'best_of'],
      [{ model: 'sentiment' }, 'model'],
    ];
    for (const [fields, param] of cases) {
      const body = { model: 'assistant', messages: MESSAGES, ...fields };
      const error = await refusal(client.post('/chat/completions', { body }));
      expect([error.status, error.param], JSON.stringify(fields)).toEqual([400, param]);
    }
  });

  it('lists the endpoints the OpenAI routes serve as models, and answers one by id', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models.map((model) => model.id)).toEqual(['assistant', 'brief', 'plain', 'writer']);
    expect(models[0]).toEqual({
      id: 'assistant',
      object: 'model',
      created: expect.any(Number) as number,
      owned_by: 'modelgate',
      task: 'text-generation',
    });
    const one = await client.models.retrieve('writer');
    expect(one.id).toBe('writer');
    expect(one.created).toBe(models[3]?.created);
    const unknown = await refusal(client.models.retrieve('nope'));
    expect(unknown.status).toBe(404);
    const classifier = await refusal(client.models.retrieve('sentiment'));
    expect(classifier.status).toBe(404);
    expect(classifier.message).toContain('/serve/sentiment');
  });
});
