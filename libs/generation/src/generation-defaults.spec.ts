import { describe, expect, it } from 'vitest';
import {
  applyDecodingDefaults,
  readGenerationDefaults,
  withDecodingDefaults,
} from './generation-defaults.js';
import { toGenerationParams } from './params.js';

describe('readGenerationDefaults', () => {
  it('applies the decoding fields, skips ids and metadata, and lists what it does not do', () => {
    expect(
      readGenerationDefaults({
        bos_token_id: 1,
        eos_token_id: [2, 3],
        transformers_version: '4.46.0',
        max_new_tokens: 64,
        do_sample: true,
        temperature: 0.7,
        top_k: 20,
        top_p: 0.8,
        repetition_penalty: 1.05,
        no_repeat_ngram_size: 0,
        min_new_tokens: 2,
        num_beams: 4,
        typical_p: 0.95,
        length_penalty: 1.2,
        max_length: 2048,
      }),
    ).toEqual({
      defaults: {
        max_new_tokens: 64,
        do_sample: true,
        temperature: 0.7,
        top_k: 20,
        top_p: 0.8,
        repetition_penalty: 1.05,
        no_repeat_ngram_size: 0,
        min_new_tokens: 2,
      },
      unsupported: ['num_beams=4', 'typical_p=0.95', 'length_penalty=1.2'],
    });
  });

  it('takes neutral values of what it does not do as nothing, and lists a value it cannot take', () => {
    expect(
      readGenerationDefaults({
        num_beams: 1,
        typical_p: 1,
        length_penalty: 2,
        bad_words_ids: null,
        max_length: 20,
      }),
    ).toEqual({ defaults: {}, unsupported: [] });
    expect(readGenerationDefaults({ temperature: 0, max_length: 512 }).unsupported).toEqual([
      'temperature=0',
      'max_length=512',
    ]);
  });
});

describe('withDecodingDefaults', () => {
  const sampling = { do_sample: true, temperature: 0.7, top_k: 20, top_p: 0.8, max_new_tokens: 64 };

  it("takes the model's sampling when the request makes no choice, and its length and penalties", () => {
    expect(withDecodingDefaults({}, { ...sampling, repetition_penalty: 1.1 })).toEqual({
      do_sample: true,
      temperature: 0.7,
      top_k: 20,
      top_p: 0.8,
      max_new_tokens: 64,
      repetition_penalty: 1.1,
    });
  });

  it("lets the request's choice win: greedy drops the model's knobs, sampling fills the ones it left out", () => {
    expect(withDecodingDefaults({ do_sample: false }, sampling)).toEqual({
      do_sample: false,
      max_new_tokens: 64,
    });
    expect(withDecodingDefaults({ temperature: 0 }, sampling)).toEqual({
      temperature: 0,
      max_new_tokens: 64,
    });
    expect(withDecodingDefaults({ temperature: 1.2, max_new_tokens: 5 }, sampling)).toEqual({
      do_sample: true,
      temperature: 1.2,
      top_k: 20,
      top_p: 0.8,
      max_new_tokens: 5,
    });
  });

  it("a greedy model file gives a request that names nothing greedy decoding, and a route's built-in comes last", () => {
    expect(withDecodingDefaults({}, { do_sample: false, temperature: 0.6 })).toEqual({ do_sample: false });
    const openAi = { do_sample: true, temperature: 1, max_new_tokens: 16 };
    expect(withDecodingDefaults({}, { top_p: 0.9 }, openAi)).toEqual({
      do_sample: true,
      top_p: 0.9,
      temperature: 1,
      max_new_tokens: 16,
    });
  });

  it("keeps a model's min_new_tokens within the request's max_new_tokens", () => {
    expect(withDecodingDefaults({ max_new_tokens: 4 }, { min_new_tokens: 10 })).toEqual({
      max_new_tokens: 4,
      min_new_tokens: 4,
      do_sample: false,
    });
  });
});

describe('applyDecodingDefaults', () => {
  it('resolves the parameters again with the model defaults, and leaves them without any', () => {
    const params = toGenerationParams({ max_new_tokens: 8 });
    expect(applyDecodingDefaults(params, undefined)).toBe(params);
    expect(applyDecodingDefaults(params, {})).toBe(params);
    const applied = applyDecodingDefaults(params, { repetition_penalty: 1.3, max_new_tokens: 99 });
    expect(applied.maxNewTokens).toBe(8);
    expect(applied.penalties?.repetitionPenalty).toBe(1.3);
    expect(applied.doSample).toBe(false);
  });

  it('keeps the logprobs the route asked for, which no model file sets', () => {
    const params = { ...toGenerationParams({ max_new_tokens: 8 }), logprobs: 3 };
    expect(applyDecodingDefaults(params, { repetition_penalty: 1.3 }).logprobs).toBe(3);
  });
});
