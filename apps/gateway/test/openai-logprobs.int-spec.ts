// OpenAI's logprobs on /v1/chat/completions and /v1/completions, called with the official openai
// client. The reference is the model's own logits: one cache-free onnxruntime run over the prompt
// and transformers.js' greedy tokens, log-softmaxed in doubles (transformers.js' generate does not
// report scores); each token's text is transformers.js' decode of it alone.
import { ensureFixture, getFixtureSpec } from '@modelgate/fixtures';
import {
  DecoderSession,
  type RunningGateway,
  type RunningWorker,
  componentValidator,
  startServingPair,
  transformersChatGreedy,
  transformersGreedy,
  transformersTokenTexts,
} from '@modelgate/testing';
import { loadTokenizerFromDir } from '@modelgate/processing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayOpenApiDocument } from '../src/openapi/gateway-openapi.js';

const MESSAGES = [
  { role: 'system' as const, content: 'You answer briefly.' },
  { role: 'user' as const, content: 'Where is Zürich?' },
];
const MAX_TOKENS = 12;
const TOP = 3;
/** A greedy chat request with logprobs and TOP alternatives. */
const ASK = {
  model: 'assistant',
  messages: MESSAGES,
  max_completion_tokens: MAX_TOKENS,
  temperature: 0,
  logprobs: true,
  top_logprobs: TOP,
};

/** What a step's reference says: the token's log-probability and the TOP most likely ids. */
interface ReferenceStep {
  logprob: number;
  best: number[];
  bestLogprobs: number[];
}

function referenceSteps(rows: readonly Float64Array[], tokens: readonly number[]): ReferenceStep[] {
  return rows.map((row, step) => {
    const best = [...row.keys()].sort((a, b) => row[b]! - row[a]! || a - b).slice(0, TOP);
    return { logprob: row[tokens[step]!]!, best, bestLogprobs: best.map((id) => row[id]!) };
  });
}

describe('gateway: OpenAI logprobs and top_logprobs (tiny-gpt2-chat, tiny-gpt2), called with the official openai client', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let client: OpenAI;
  const document = gatewayOpenApiDocument();
  let chat: { tokens: number[]; texts: string[]; steps: ReferenceStep[]; text: string };

  beforeAll(async () => {
    ({ worker, gateway } = await startServingPair(
      [
        { name: 'chat', fixture: 'tiny-gpt2-chat', task: 'text-generation' },
        { name: 'gpt', fixture: 'tiny-gpt2', task: 'text-generation' },
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
        ],
      },
    ));
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const dir = await ensureFixture('tiny-gpt2-chat');
    const greedy = await transformersChatGreedy(dir, MESSAGES, MAX_TOKENS);
    const session = await DecoderSession.open(dir, getFixtureSpec('tiny-gpt2-chat'));
    const rows = await session
      .stepLogprobs(greedy.promptIds, greedy.tokenIds)
      .finally(() => session.release());
    const steps = referenceSteps(rows, greedy.tokenIds);
    chat = {
      tokens: greedy.tokenIds,
      texts: await transformersTokenTexts(dir, greedy.tokenIds),
      steps,
      text: greedy.text,
    };
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
  });

  /** Checks a chat answer's logprobs content against the reference, token by token. */
  async function expectChatContent(content: OpenAI.Chat.Completions.ChatCompletionTokenLogprob[]) {
    expect(content.map((entry) => entry.token)).toEqual(chat.texts);
    for (const [step, entry] of content.entries()) {
      const reference = chat.steps[step]!;
      expect(entry.logprob).toBeCloseTo(reference.logprob, 4);
      expect(entry.bytes).toEqual([...Buffer.from(entry.token, 'utf8')]);
      expect(entry.top_logprobs.map((top) => top.token)).toEqual(
        await transformersTokenTexts(await ensureFixture('tiny-gpt2-chat'), reference.best),
      );
      entry.top_logprobs.forEach((top, k) => expect(top.logprob).toBeCloseTo(reference.bestLogprobs[k]!, 4));
    }
  }

  it("chat: each generated token's logprob and its top_logprobs are the model's own, in the documented shape", async () => {
    const answer = await client.chat.completions.create(ASK);
    const validator = componentValidator(document, 'ChatCompletion');
    expect(validator.validate(answer), validator.errors()).toBe(true);
    const [choice] = answer.choices;
    expect(choice?.message.content).toBe(chat.text);
    const content = choice?.logprobs?.content ?? [];
    // One per generated token, the end-of-sequence token included, as usage counts them.
    expect(content).toHaveLength(answer.usage!.completion_tokens);
    expect(content).toHaveLength(chat.tokens.length);
    await expectChatContent(content);
    expect(choice?.logprobs?.refusal).toBeNull();
    // The model's generation_config.json penalties (repetition_penalty, no_repeat_ngram_size) chose
    // the tokens, as in transformers.js; the logprobs are the raw model's, so a pick can rank below first.
    expect(content.some((entry) => entry.token !== entry.top_logprobs[0]?.token)).toBe(true);
  });

  it('chat, streamed: the chunks carry the logprobs of their own tokens, adding up to the whole answer', async () => {
    const stream = await client.chat.completions.create({ ...ASK, stream: true });
    const validator = componentValidator(document, 'ChatCompletionChunk');
    const content: OpenAI.Chat.Completions.ChatCompletionTokenLogprob[] = [];
    let text = '';
    for await (const chunk of stream) {
      expect(validator.validate(chunk), validator.errors()).toBe(true);
      for (const choice of chunk.choices) {
        text += choice.delta.content ?? '';
        // A chunk with text carries the tokens that completed it.
        if ((choice.delta.content ?? '') !== '') expect(choice.logprobs?.content?.length).toBeGreaterThan(0);
        content.push(...(choice.logprobs?.content ?? []));
      }
    }
    expect(text).toBe(chat.text);
    expect(content).toHaveLength(chat.tokens.length);
    await expectChatContent(content);
  });

  it('chat: logprobs without top_logprobs lists no alternatives; without logprobs there are none', async () => {
    const ask = (logprobs: boolean) =>
      client.chat.completions.create({
        model: 'assistant',
        messages: MESSAGES,
        max_completion_tokens: 4,
        temperature: 0,
        logprobs,
      });
    const [withLogprobs, without] = [await ask(true), await ask(false)];
    const content = withLogprobs.choices[0]?.logprobs?.content ?? [];
    expect(content).toHaveLength(withLogprobs.usage!.completion_tokens);
    for (const entry of content) expect(entry.top_logprobs).toEqual([]);
    expect(without.choices[0]?.logprobs).toBeNull();
  });

  it("completions: tokens, token_logprobs, top_logprobs and text_offset from the model's own logits", async () => {
    const prompt = 'The quick brown fox';
    const dir = await ensureFixture('tiny-gpt2');
    const greedy = await transformersGreedy(dir, prompt, 6);
    const session = await DecoderSession.open(dir, getFixtureSpec('tiny-gpt2'));
    const promptIds = (await loadTokenizerFromDir(dir)).tokenize(prompt);
    const rows = await session.stepLogprobs(promptIds, greedy.tokenIds).finally(() => session.release());
    const steps = referenceSteps(rows, greedy.tokenIds);
    const answer = await client.completions.create({
      model: 'writer',
      prompt,
      max_tokens: 6,
      temperature: 0,
      logprobs: TOP,
    });
    const validator = componentValidator(document, 'Completion');
    expect(validator.validate(answer), validator.errors()).toBe(true);
    const logprobs = answer.choices[0]?.logprobs;
    const texts = await transformersTokenTexts(dir, greedy.tokenIds);
    expect(logprobs?.tokens).toEqual(texts);
    logprobs?.token_logprobs?.forEach((value, step) => expect(value).toBeCloseTo(steps[step]!.logprob, 4));
    const bestTexts = await Promise.all(steps.map((step) => transformersTokenTexts(dir, step.best)));
    expect(logprobs?.top_logprobs?.map((top) => Object.keys(top))).toEqual(bestTexts);
    let offset = 0;
    expect(logprobs?.text_offset).toEqual(
      texts.map((token) => {
        const at = offset;
        offset += token.length;
        return at;
      }),
    );
  });
});
