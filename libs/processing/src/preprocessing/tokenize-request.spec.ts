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
});
