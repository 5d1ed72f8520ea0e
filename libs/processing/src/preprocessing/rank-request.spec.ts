import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { parseRankRequest } from './rank-request.js';
import { parseServeRequest } from './serve-request.js';

const LIMITS = { maxInputChars: 20, maxBatchItems: 3, truncation: false };

function refusal(body: unknown): { code: string; message: string; field: unknown } {
  try {
    parseRankRequest(body, LIMITS);
  } catch (error) {
    const { code, message, details } = error as {
      code: string;
      message: string;
      details: { field?: unknown };
    };
    return { code, message, field: details.field };
  }
  return expect.fail(`expected ${JSON.stringify(body)} to be refused`);
}

describe('parseRankRequest', () => {
  it('reads TEI fields with their defaults, truncation from the endpoint', () => {
    expect(parseRankRequest({ query: 'q', texts: ['a', ''] }, LIMITS)).toEqual({
      query: 'q',
      texts: ['a', ''],
      returnText: false,
      rawScores: false,
      truncation: false,
    });
    expect(
      parseRankRequest(
        {
          query: 'q',
          texts: ['a'],
          top_n: 1,
          return_text: true,
          raw_scores: true,
          truncate: true,
          truncation_direction: 'Right',
        },
        LIMITS,
      ),
    ).toEqual({ query: 'q', texts: ['a'], topN: 1, returnText: true, rawScores: true, truncation: true });
  });

  it.each([
    [{ texts: ['a'] }, ErrorCode.INVALID_ARGUMENT, 'query', 'query: is required'],
    [{ query: 'q', texts: 'a' }, ErrorCode.INVALID_ARGUMENT, 'texts', 'texts: must be an array of strings'],
    [{ query: 'q', texts: ['a', 3] }, ErrorCode.INVALID_ARGUMENT, 'texts[1]', 'texts[1]: must be a string'],
    [{ query: 'q', texts: [] }, ErrorCode.INVALID_ARGUMENT, 'texts', 'texts: must hold at least one text'],
    [
      { query: 'q', texts: ['a'], top_n: 0 },
      ErrorCode.INVALID_ARGUMENT,
      'top_n',
      'must be a positive integer',
    ],
    [
      { query: 'q', texts: ['a'], truncation_direction: 'Left' },
      ErrorCode.INVALID_ARGUMENT,
      'truncation_direction',
      "only 'Right' is supported",
    ],
    [
      { query: 'q', texts: ['a'], text: 'x' },
      ErrorCode.INVALID_ARGUMENT,
      'text',
      'text: is not a known field',
    ],
    [
      { query: 'q', texts: ['a', 'b', 'c', 'd'] },
      ErrorCode.PAYLOAD_TOO_LARGE,
      'texts',
      'more than the limit of 3',
    ],
    [{ query: 'q'.repeat(21), texts: ['a'] }, ErrorCode.PAYLOAD_TOO_LARGE, 'query', 'is 21 characters long'],
    [
      { query: 'q', texts: ['a', 'b'.repeat(21)] },
      ErrorCode.PAYLOAD_TOO_LARGE,
      'texts[1]',
      'is 21 characters',
    ],
  ])('refuses %j naming the field', (body, code, field, message) => {
    const refused = refusal(body);
    expect(refused).toMatchObject({ code, field });
    expect(refused.message).toContain(message);
  });
});

describe('parseServeRequest on a text-ranking endpoint', () => {
  it('pairs the query with every text as rows of one batch', () => {
    const request = parseServeRequest({ query: 'q', texts: ['a', 'b'], top_n: 1 }, LIMITS, {
      task: 'text-ranking',
    });
    expect(request).toMatchObject({
      texts: ['q', 'q'],
      pairs: ['a', 'b'],
      batch: true,
      truncation: false,
      inputField: 'texts',
      ranking: { query: 'q', texts: ['a', 'b'], topN: 1 },
    });
  });

  it('refuses the text field of other tasks', () => {
    expect(() => parseServeRequest({ text: 'a' }, LIMITS, { task: 'text-ranking' })).toThrow(
      /query: is required.*texts: is required.*text: is not a known field/,
    );
  });
});
