import { ErrorCode } from '@modelgate/contracts';
import { DEFAULT_MAX_NEW_TOKENS } from '@modelgate/generation';
import { describe, expect, it } from 'vitest';
import { parseTritonGenerateRequest, toTritonGenerateAnswer } from './triton-generate.js';

describe('parseTritonGenerateRequest', () => {
  it('decodes greedily with the default token limit when no parameter is given', () => {
    expect(parseTritonGenerateRequest({ text_input: 'Hello' })).toEqual({
      prompt: 'Hello',
      params: {
        maxNewTokens: DEFAULT_MAX_NEW_TOKENS,
        doSample: false,
        temperature: 1,
        topK: 0,
        topP: 1,
        seed: undefined,
        stop: [],
        requested: {},
      },
      stream: undefined,
      prependPrompt: false,
    });
  });

  it('reads parameters from `parameters` and from the top level (TensorRT-LLM style)', () => {
    const nested = parseTritonGenerateRequest({
      text_input: 'Hi',
      parameters: { max_tokens: 8, temperature: 0.5, top_k: 40, top_p: 0.9, seed: 7, stop: ['.'] },
    });
    expect(nested.params).toEqual({
      maxNewTokens: 8,
      doSample: true,
      temperature: 0.5,
      topK: 40,
      topP: 0.9,
      seed: 7,
      stop: ['.'],
      // In /serve's names, for the model's generation_config.json defaults.
      requested: { max_new_tokens: 8, temperature: 0.5, top_k: 40, top_p: 0.9, seed: 7, stop: ['.'] },
    });
    const flat = parseTritonGenerateRequest({
      text_input: 'Hi',
      max_tokens: 8,
      temperature: 0.5,
      top_k: 40,
      top_p: 0.9,
      random_seed: 7,
      stop_words: ['.'],
    });
    expect(flat.params).toEqual(nested.params);
  });

  it('accepts the aliases max_new_tokens and stop_words as a string, an empty one meaning none', () => {
    const request = parseTritonGenerateRequest({
      text_input: 'Hi',
      max_new_tokens: 3,
      parameters: { stop_words: '\n' },
    });
    expect(request.params).toMatchObject({ maxNewTokens: 3, stop: ['\n'] });
    expect(parseTritonGenerateRequest({ text_input: 'Hi', stop_words: '' }).params.stop).toEqual([]);
  });

  it('follows the /serve rule for sampling: temperature 0 is greedy, greedy with sampling parameters is refused', () => {
    expect(parseTritonGenerateRequest({ text_input: 'x', temperature: 0 }).params.doSample).toBe(false);
    expect(() =>
      parseTritonGenerateRequest({ text_input: 'x', parameters: { top_p: 0.5, do_sample: false } }),
    ).toThrow(/top_p is a sampling parameter.*do_sample is false/);
    expect(parseTritonGenerateRequest({ text_input: 'x', do_sample: true }).params.doSample).toBe(true);
  });

  it('reads stream and exclude_input_in_output', () => {
    expect(
      parseTritonGenerateRequest({
        text_input: 'x',
        parameters: { stream: true, exclude_input_in_output: false },
      }),
    ).toMatchObject({ stream: true, prependPrompt: true });
  });

  it.each([
    [{ text_input: 'x', parameters: { bad_words: 'no' } }, 'bad_words', /'bad_words' is not supported/],
    [{ text_input: 'x', beam_width: 2 }, 'beam_width', /'beam_width' is not supported/],
    [{ text_input: 'x', max_tokens: 0 }, 'max_tokens', /^max_tokens: /],
    [{ text_input: 'x', parameters: { top_p: 1.5 } }, 'parameters.top_p', /^parameters.top_p: /],
    [{ text_input: 'x', max_tokens: 2, max_new_tokens: 2 }, 'max_new_tokens', /not both/],
    [{ text_input: 'x', seed: 1, parameters: { random_seed: 1 } }, 'random_seed', /not both/],
    [
      { text_input: 'x', temperature: 1, parameters: { temperature: 1 } },
      'temperature',
      /both at the top level/,
    ],
    [{ text_input: 'x', stop: ['1', '2', '3', '4', '5', '6', '7', '8', '9'] }, 'stop', /^stop: /],
    [{ parameters: {} }, 'text_input', /^text_input: /],
  ])('refuses %j naming the field', (body, field, message) => {
    expect(() => parseTritonGenerateRequest(body)).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_ARGUMENT,
        details: expect.objectContaining({ field }) as unknown,
        message: expect.stringMatching(message) as unknown,
      }) as Error,
    );
  });
});

describe('toTritonGenerateAnswer', () => {
  it('answers model_name, model_version and text_output, with a finish_reason when it is the last', () => {
    const model = { name: 'gpt', version: '1' };
    expect(toTritonGenerateAnswer(model, ' text')).toEqual({
      model_name: 'gpt',
      model_version: '1',
      text_output: ' text',
    });
    expect(toTritonGenerateAnswer(model, '', 'eos')).toMatchObject({ finish_reason: 'stop' });
    expect(toTritonGenerateAnswer(model, '', 'length')).toMatchObject({ finish_reason: 'length' });
  });
});
