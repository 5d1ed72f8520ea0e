import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import {
  completionChunk,
  completionUsage,
  parseOpenAiCompletionsRequest,
  toOpenAiCompletion,
  toOpenAiFinishReason,
  usageChunk,
} from './openai-completions.js';

describe('parseOpenAiCompletionsRequest', () => {
  it("fills in OpenAI's defaults: 16 tokens, temperature 1 (sampling), no stop, no stream", () => {
    expect(parseOpenAiCompletionsRequest({ model: 'gpt', prompt: 'Hello' })).toEqual({
      model: 'gpt',
      prompts: ['Hello'],
      params: {
        maxNewTokens: 16,
        doSample: true,
        temperature: 1,
        topK: 0,
        topP: 1,
        stop: [],
        // What the request said, and OpenAI's own defaults, below a model's generation_config.json.
        requested: { stop: [] },
        builtIn: { do_sample: true, temperature: 1, max_new_tokens: 16 },
      },
      stream: false,
      includeUsage: false,
      echo: false,
      choices: 1,
    });
  });

  it('decodes greedily at temperature 0 and samples with temperature, top_p and seed otherwise', () => {
    expect(
      parseOpenAiCompletionsRequest({ model: 'gpt', prompt: ['Hi'], max_tokens: 5, temperature: 0 }),
    ).toMatchObject({ prompts: ['Hi'], params: { maxNewTokens: 5, doSample: false, temperature: 1 } });
    expect(parseOpenAiCompletionsRequest({ model: 'gpt', prompt: ['a', 'b', 'c'] }).prompts).toEqual([
      'a',
      'b',
      'c',
    ]);
    expect(
      parseOpenAiCompletionsRequest({ model: 'gpt', prompt: 'Hi', temperature: 0.7, top_p: 0.9, seed: 42 })
        .params,
    ).toMatchObject({
      maxNewTokens: 16,
      doSample: true,
      temperature: 0.7,
      topK: 0,
      topP: 0.9,
      seed: 42,
      stop: [],
      requested: { temperature: 0.7, top_p: 0.9, seed: 42, stop: [] },
    });
  });

  it('takes null for every optional field, as clients send them', () => {
    const nulls = Object.fromEntries(
      [
        'max_tokens',
        'temperature',
        'top_p',
        'n',
        'stream',
        'stream_options',
        'stop',
        'seed',
        'echo',
        'suffix',
        'logprobs',
        'best_of',
        'presence_penalty',
        'frequency_penalty',
        'logit_bias',
        'user',
      ].map((key) => [key, null]),
    );
    expect(parseOpenAiCompletionsRequest({ model: 'gpt', prompt: 'Hi', ...nulls }).params.maxNewTokens).toBe(
      16,
    );
  });

  it('maps OpenAI penalties and the vLLM extensions to the processors, and leaves them out when neutral', () => {
    const parsed = parseOpenAiCompletionsRequest({
      model: 'gpt',
      prompt: 'Hi',
      presence_penalty: 0.5,
      frequency_penalty: -1,
      repetition_penalty: 1.3,
      min_tokens: 3,
    });
    expect(parsed.params.penalties).toEqual({
      repetitionPenalty: 1.3,
      presencePenalty: 0.5,
      frequencyPenalty: -1,
      noRepeatNgramSize: 0,
      minNewTokens: 3,
    });
    const neutral = parseOpenAiCompletionsRequest({ model: 'gpt', prompt: 'Hi', presence_penalty: 0 });
    expect(neutral.params).not.toHaveProperty('penalties');
  });

  it('reads stop as one string or a list, stream with include_usage, and echo', () => {
    const one = parseOpenAiCompletionsRequest({ model: 'gpt', prompt: 'Hi', stop: '\n' });
    expect(one.params.stop).toEqual(['\n']);
    const streamed = parseOpenAiCompletionsRequest({
      model: 'gpt',
      prompt: 'Hi',
      stop: ['.', '!'],
      stream: true,
      stream_options: { include_usage: true },
      echo: true,
      n: 1,
      best_of: 1,
      presence_penalty: 0,
      frequency_penalty: 0,
      logit_bias: {},
      user: 'someone',
    });
    expect(streamed).toMatchObject({
      stream: true,
      includeUsage: true,
      echo: true,
      params: { stop: ['.', '!'] },
      user: 'someone',
    });
    expect(one).not.toHaveProperty('user');
  });

  it.each([
    [{ model: 'gpt', prompt: 'x', suffix: 'end' }, 'suffix'],
    [{ model: 'gpt', prompt: 'x', logprobs: 1, echo: true }, 'logprobs'],
    [{ model: 'gpt', prompt: 'x', logprobs: 21 }, 'logprobs'],
    [{ model: 'gpt', prompt: 'x', logprobs: -1 }, 'logprobs'],
    [{ model: 'gpt', prompt: 'x', best_of: 2 }, 'best_of'],
    [{ model: 'gpt', prompt: 'x', n: 17 }, 'n'],
    [{ model: 'gpt', prompt: Array.from({ length: 33 }, () => 'x'), n: 2 }, 'n'],
    [{ model: 'gpt', prompt: 'x', presence_penalty: 2.5 }, 'presence_penalty'],
    [{ model: 'gpt', prompt: 'x', frequency_penalty: -3 }, 'frequency_penalty'],
    [{ model: 'gpt', prompt: 'x', repetition_penalty: 0 }, 'repetition_penalty'],
    [{ model: 'gpt', prompt: 'x', max_tokens: 4, min_tokens: 5 }, 'min_tokens'],
    [{ model: 'gpt', prompt: 'x', logit_bias: { '50256': -100 } }, 'logit_bias'],
    [{ model: 'gpt', prompt: 'x', stream_options: { include_usage: true } }, 'stream_options'],
    [{ model: 'gpt', prompt: 'x', stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
    [{ model: 'gpt', prompt: 'x', temperature: 3 }, 'temperature'],
    [{ model: 'gpt', prompt: 'x', max_tokens: 0 }, 'max_tokens'],
    [{ model: 'gpt', prompt: 'x', top_p: 0 }, 'top_p'],
    [{ model: 'gpt', prompt: 'x', temperature: 0, top_p: 0.5 }, 'top_p'],
    [{ model: 'gpt', prompt: 'x', seed: -1 }, 'seed'],
    [{ model: 'gpt', prompt: 'x', temperature: 0, seed: 7 }, 'seed'],
    [{ model: 'gpt', prompt: 'x', tools: [] }, 'tools'],
    [{ prompt: 'x' }, 'model'],
    [{ model: 'gpt', prompt: [] }, 'prompt'],
    [{ model: 'gpt', prompt: Array.from({ length: 65 }, () => 'x') }, 'prompt'],
    [{ model: 'gpt', prompt: [50256, 50256] }, 'prompt'],
  ])('refuses %j naming the field', (body, param) => {
    expect(() => parseOpenAiCompletionsRequest(body)).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_ARGUMENT,
        details: expect.objectContaining({ field: param }) as unknown,
        message: expect.stringMatching(new RegExp(`^${param}: `)) as unknown,
      }) as Error,
    );
  });

  it('says what a stop list or prompt list may hold', () => {
    for (const stop of [['a', 'b', 'c', 'd', 'e'], 5]) {
      expect(() => parseOpenAiCompletionsRequest({ model: 'gpt', prompt: 'x', stop })).toThrow(
        'stop: must be a non-empty string or an array of at most 4 non-empty strings',
      );
    }
    for (const prompt of [Array.from({ length: 65 }, () => 'x'), 5]) {
      expect(() => parseOpenAiCompletionsRequest({ model: 'gpt', prompt })).toThrow(
        'prompt: must be a string or an array of 1 to 64 strings',
      );
    }
  });

  it('says why for token ids', () => {
    expect(() => parseOpenAiCompletionsRequest({ model: 'gpt', prompt: [[1, 2]] })).toThrow(
      'prompt: token-id arrays are not accepted',
    );
  });
});

describe('completion answers', () => {
  const identity = { id: 'cmpl-abc', created: 1_700_000_000, model: 'gpt' };

  it('maps EOS and stop strings to "stop", the token limit to "length"', () => {
    expect(toOpenAiFinishReason('eos')).toBe('stop');
    expect(toOpenAiFinishReason('stop')).toBe('stop');
    expect(toOpenAiFinishReason('length')).toBe('length');
  });

  it('answers one choice per prompt, in order, with the usage summed', () => {
    const usage = completionUsage([
      { promptTokens: 3, generatedTokens: 2 },
      { promptTokens: 4, generatedTokens: 1 },
    ]);
    const texts = [
      { text: ' world', finishReason: 'length' as const },
      { text: '.', finishReason: 'stop' as const },
    ];
    expect(toOpenAiCompletion(identity, texts, usage)).toEqual({
      id: 'cmpl-abc',
      object: 'text_completion',
      created: 1_700_000_000,
      model: 'gpt',
      choices: [
        { text: ' world', index: 0, finish_reason: 'length', logprobs: null },
        { text: '.', index: 1, finish_reason: 'stop', logprobs: null },
      ],
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
    });
  });

  it('streams deltas with a null finish_reason, usage null only when usage is asked for', () => {
    expect(completionChunk(identity, 1, ' wor', null, false)).toEqual({
      ...identity,
      object: 'text_completion',
      choices: [{ text: ' wor', index: 1, finish_reason: null, logprobs: null }],
    });
    expect(completionChunk(identity, 0, '', 'stop', true)).toMatchObject({
      choices: [{ index: 0, finish_reason: 'stop' }],
      usage: null,
    });
    expect(usageChunk(identity, completionUsage([{ promptTokens: 3, generatedTokens: 4 }]))).toEqual({
      ...identity,
      object: 'text_completion',
      choices: [],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
  });
});
