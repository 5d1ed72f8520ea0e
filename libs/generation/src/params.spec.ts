import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type z } from 'zod';
import {
  DEFAULT_MAX_NEW_TOKENS,
  type TextGenerationParameters,
  textGenerationParametersSchema,
  toGenerationParams,
} from './params.js';

/** The first issue's message of a refused `parameters` object. */
function refusal(parameters: unknown): { path: PropertyKey[]; message: string } {
  const result = textGenerationParametersSchema.safeParse(parameters);
  expect(result.success).toBe(false);
  const issue = result.error!.issues[0]!;
  return { path: issue.path, message: issue.message };
}

/** The canonical parameters, without `requested` (what the request said, checked on its own below). */
function params(parameters: TextGenerationParameters | undefined) {
  const { requested: _requested, ...canonical } = toGenerationParams(
    parameters === undefined ? undefined : textGenerationParametersSchema.parse(parameters),
  );
  return canonical;
}

describe('textGenerationParametersSchema', () => {
  it('accepts every TGI parameter at its bounds', () => {
    const parsed = textGenerationParametersSchema.parse({
      max_new_tokens: 4096,
      do_sample: true,
      temperature: Number.MIN_VALUE,
      top_k: 0,
      top_p: 1,
      seed: Number.MAX_SAFE_INTEGER,
      stop: ['a', 'b', 'c', 'd', 'e', 'f', 'g', '\n\n'],
      return_full_text: true,
    });
    expect(parsed.seed).toBe(Number.MAX_SAFE_INTEGER);
    expect(textGenerationParametersSchema.parse({})).toEqual({});
  });

  it('refuses unknown keys, naming them and the known ones', () => {
    const { message } = refusal({ max_tokens: 5 });
    expect(message).toContain('"max_tokens"');
    expect(message).toContain('max_new_tokens');
  });

  it.each([
    [{ max_new_tokens: 0 }, 'max_new_tokens', 'from 1 to 4096'],
    [{ max_new_tokens: 4097 }, 'max_new_tokens', 'from 1 to 4096'],
    [{ max_new_tokens: 2.5 }, 'max_new_tokens', 'from 1 to 4096'],
    [{ max_new_tokens: '5' }, 'max_new_tokens', 'from 1 to 4096'],
    [{ do_sample: 'yes' }, 'do_sample', 'true or false'],
    [{ temperature: -0.1 }, 'temperature', '>= 0'],
    [{ top_k: -1 }, 'top_k', 'from 0 to 4294967295'],
    [{ top_k: 1.5 }, 'top_k', 'from 0 to 4294967295'],
    // The worker's field is a uint32: 2^32 + 1 would arrive as top_k 1 (greedy).
    [{ top_k: 2 ** 32 + 1 }, 'top_k', 'from 0 to 4294967295'],
    [{ top_p: 0 }, 'top_p', 'above 0 and at most 1'],
    [{ top_p: 1.01 }, 'top_p', 'above 0 and at most 1'],
    [{ seed: -1 }, 'seed', '2^53-1'],
    [{ seed: 2 ** 53 }, 'seed', '2^53-1'],
    [{ stop: 'end' }, 'stop', 'array of strings'],
    [{ stop: [''] }, 'stop', 'must not be empty'],
    [{ stop: ['1', '2', '3', '4', '5', '6', '7', '8', '9'] }, 'stop', 'at most 8'],
    [{ return_full_text: 1 }, 'return_full_text', 'true or false'],
    [
      { do_sample: false, temperature: 0.7, top_p: 0.5 },
      'temperature',
      'temperature, top_p are sampling parameters',
    ],
    [{ do_sample: false, seed: 1 }, 'seed', 'do_sample is false (greedy)'],
    [{ temperature: 0, top_k: 5 }, 'top_k', 'temperature 0 means greedy decoding, which takes no top_k'],
    [{ temperature: 0, do_sample: true }, 'do_sample', 'temperature 0 means greedy'],
    [{ seed: 3 }, 'seed', 'seed only applies to sampling'],
  ])('refuses %j with a clear message', (parameters, field, text) => {
    const { path, message } = refusal(parameters);
    expect(path[0]).toBe(field);
    expect(message).toContain(text);
  });

  it('describes every field (the OpenAPI walker needs it)', () => {
    const shape = textGenerationParametersSchema.shape as Record<string, z.ZodType>;
    for (const [name, field] of Object.entries(shape)) {
      expect(field.description, name).toBeTruthy();
    }
  });
});

describe('toGenerationParams', () => {
  it('fills in the defaults: greedy, 20 new tokens, no stop, generated text only', () => {
    const expected = {
      maxNewTokens: DEFAULT_MAX_NEW_TOKENS,
      doSample: false,
      temperature: 1,
      topK: 0,
      topP: 1,
      seed: undefined,
      stop: [],
      returnFullText: false,
    };
    expect(params(undefined)).toEqual(expected);
    expect(params({})).toEqual(expected);
  });

  it('maps every field', () => {
    expect(
      params({
        max_new_tokens: 7,
        do_sample: true,
        temperature: 0.7,
        top_k: 40,
        top_p: 0.9,
        seed: 42,
        stop: ['\n'],
        return_full_text: true,
      }),
    ).toEqual({
      maxNewTokens: 7,
      doSample: true,
      temperature: 0.7,
      topK: 40,
      topP: 0.9,
      seed: 42,
      stop: ['\n'],
      returnFullText: true,
    });
  });

  it.each([
    [{ temperature: 0.7 }, true],
    [{ top_k: 5 }, true],
    [{ top_k: 0 }, true],
    [{ top_p: 0.9 }, true],
    [{ seed: 3, top_p: 0.5 }, true],
    [{ temperature: 0 }, false],
    [{ do_sample: false, temperature: 0 }, false],
    [{ do_sample: true }, true],
    [{ do_sample: false }, false],
  ])('infers do_sample for %j: %s', (parameters, doSample) => {
    expect(params(parameters).doSample).toBe(doSample);
  });

  it('always yields valid canonical parameters', () => {
    const arbitrary = fc.record(
      {
        max_new_tokens: fc.integer({ min: 1, max: 4096 }),
        do_sample: fc.boolean(),
        temperature: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 10, noNaN: true })),
        top_k: fc.nat(100),
        top_p: fc.double({ min: Number.MIN_VALUE, max: 1, noNaN: true }),
        seed: fc.maxSafeNat(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(arbitrary, (parameters) => {
        const checked = textGenerationParametersSchema.safeParse(parameters);
        if (!checked.success) return; // a contradiction about sampling, refused
        const result = toGenerationParams(checked.data);
        expect(result.maxNewTokens).toBeGreaterThanOrEqual(1);
        expect(result.temperature).toBeGreaterThan(0);
        expect(result.topP).toBeGreaterThan(0);
        expect(result.topP).toBeLessThanOrEqual(1);
        if (parameters.temperature === 0) expect(result.doSample).toBe(false);
        if (parameters.do_sample === false) expect(result.doSample).toBe(false);
      }),
    );
  });
});
