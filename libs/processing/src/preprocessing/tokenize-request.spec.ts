import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { parseTokenizeRequest } from './tokenize-request.js';

const LIMITS = { maxInputChars: 10, maxBatchItems: 2, truncation: true };

describe('parseTokenizeRequest', () => {
  it('takes a serve body with add_special_tokens defaulting to true', () => {
    expect(parseTokenizeRequest({ text: 'hi' }, LIMITS)).toEqual({
      texts: ['hi'],
      batch: false,
      addSpecialTokens: true,
      truncation: true,
    });
    expect(
      parseTokenizeRequest(
        {
          text: ['a', 'b'],
          text_pair: ['c', 'd'],
          add_special_tokens: false,
          parameters: { truncation: false },
        },
        LIMITS,
      ),
    ).toEqual({
      texts: ['a', 'b'],
      pairs: ['c', 'd'],
      batch: true,
      addSpecialTokens: false,
      truncation: false,
    });
  });

  it.each([
    [
      { text: 'a', add_special_tokens: 'no' },
      ErrorCode.INVALID_ARGUMENT,
      'add_special_tokens: must be true or false',
    ],
    [
      { text: 'a', parameters: { top_k: 2 } },
      ErrorCode.INVALID_ARGUMENT,
      'parameters.top_k: is not a known field',
    ],
    [
      { text: 'a', parameters: { aggregation_strategy: 'simple' } },
      ErrorCode.INVALID_ARGUMENT,
      'parameters.aggregation_strategy: is not a known field',
    ],
    [{ text: 'a', inputs: 'a' }, ErrorCode.INVALID_ARGUMENT, 'inputs: is not a known field'],
    [{ text: ['a', 'b', 'c'] }, ErrorCode.PAYLOAD_TOO_LARGE, 'text: holds 3 texts, more than the limit of 2'],
    [{ text: 'x'.repeat(11) }, ErrorCode.PAYLOAD_TOO_LARGE, 'text: is 11 characters long'],
    [{ text: ['a'], text_pair: 'b' }, ErrorCode.INVALID_ARGUMENT, 'text_pair: must be an array of 1 strings'],
  ])('refuses %j as /serve would', (body, code, message) => {
    expect(() => parseTokenizeRequest(body, LIMITS)).toThrow(
      expect.objectContaining({ code, message: expect.stringContaining(message) as unknown }),
    );
  });
  it("holds a body to what the model's task reads: pairs where rows are pairs, one prompt for generation", () => {
    expect(parseTokenizeRequest({ text: 'q', text_pair: 'd' }, LIMITS, 'text-ranking').pairs).toEqual(['d']);
    const refusals: [Parameters<typeof parseTokenizeRequest>[2], unknown, string][] = [
      ['feature-extraction', { text: 'a', text_pair: 'b' }, 'text_pair: applies to text-classification'],
      ['token-classification', { text: 'a', text_pair: 'b' }, 'text_pair: applies to text-classification'],
      ['text-generation', { text: 'a', text_pair: 'b' }, 'text_pair: applies to text-classification'],
      ['text-generation', { text: ['a', 'b'] }, 'text: a text-generation endpoint reads one prompt'],
    ];
    for (const [task, body, message] of refusals) {
      expect(() => parseTokenizeRequest(body, LIMITS, task)).toThrow(message);
    }
    expect(parseTokenizeRequest({ text: 'a prompt' }, LIMITS, 'text-generation').texts).toEqual(['a prompt']);
  });
});
