import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { decodeSkippingSpecial, fitPrompt } from './prompt-limits.js';

const noSpecials = { addSpecialTokens: (ids: readonly number[]) => ({ ids }), specialTokenCount: () => 0 };
const withBos = {
  addSpecialTokens: (ids: readonly number[]) => ({ ids: [1, ...ids] }),
  specialTokenCount: () => 1,
};
const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

describe('fitPrompt', () => {
  it('accepts a prompt whose tokens plus max_new_tokens fit the model positions exactly', () => {
    expect(fitPrompt(range(0, 236), 20, noSpecials, { maxPositions: 256, truncation: true })).toHaveLength(
      236,
    );
  });

  it('refuses prompt + max_new_tokens over n_positions with 422, naming both numbers', () => {
    const fit = () => fitPrompt(range(0, 240), 20, noSpecials, { maxPositions: 256, truncation: true });
    expect(fit).toThrow(
      expect.objectContaining({
        code: ErrorCode.TOKEN_LIMIT_EXCEEDED,
        message: expect.stringContaining('must be <= 256') as unknown,
      }),
    );
    expect(fit).toThrow(/240 prompt tokens and 20 max_new_tokens/);
  });

  it("refuses a prompt over the endpoint's token limit with 422 when truncation is off", () => {
    expect(() => fitPrompt(range(0, 11), 1, noSpecials, { maxPromptTokens: 10, truncation: false })).toThrow(
      expect.objectContaining({ code: ErrorCode.TOKEN_LIMIT_EXCEEDED }),
    );
  });

  it("keeps the prompt's last tokens within the endpoint's limit when truncation is on", () => {
    expect(fitPrompt(range(10, 21), 1, noSpecials, { maxPromptTokens: 4, truncation: true })).toEqual([
      17, 18, 19, 20,
    ]);
  });

  it("wraps the prompt in the tokenizer's special tokens, counting them against the limit", () => {
    expect(fitPrompt([5, 6], 1, withBos, { truncation: false })).toEqual([1, 5, 6]);
    expect(fitPrompt(range(10, 21), 1, withBos, { maxPromptTokens: 4, truncation: true })).toEqual([
      1, 18, 19, 20,
    ]);
    expect(() => fitPrompt([5, 6, 7, 8], 1, withBos, { maxPromptTokens: 4, truncation: false })).toThrow(
      /5 tokens, more than the endpoint's limit of 4/,
    );
  });

  it('refuses a prompt without tokens with 400', () => {
    expect(() => fitPrompt([], 5, noSpecials, { truncation: true })).toThrow(
      expect.objectContaining({ code: ErrorCode.INVALID_ARGUMENT }),
    );
  });
});

describe('decodeSkippingSpecial', () => {
  const tokenizer = {
    specialIds: new Set([0]),
    idToToken: (id: number) => ['<eos>', 'a', 'b'][id],
    decodeTokens: (tokens: readonly string[]) => tokens.join('|'),
  };

  it('decodes the ids without their special tokens', () => {
    expect(decodeSkippingSpecial(tokenizer)([1, 0, 2])).toBe('a|b');
  });

  it('decodes only special tokens, or none, as the empty string', () => {
    expect(decodeSkippingSpecial(tokenizer)([0])).toBe('');
    expect(decodeSkippingSpecial(tokenizer)([])).toBe('');
  });
});
