import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { checkItemCount, checkTextLengths } from './request-limits.js';

const refusal = (field: string, message: string): unknown =>
  expect.objectContaining({
    code: ErrorCode.PAYLOAD_TOO_LARGE,
    message: `${field}: ${message}`,
    details: expect.objectContaining({ field }) as unknown,
  });

describe('checkItemCount', () => {
  it('refuses an array field longer than the limit, naming the field', () => {
    expect(() => checkItemCount({ texts: ['a', 'b', 'c'] }, 'texts', 2)).toThrow(
      refusal('texts', 'holds 3 texts, more than the limit of 2'),
    );
  });

  it('leaves everything else to the schema: a list within the limit, a string, a missing field, no object', () => {
    for (const body of [{ texts: ['a', 'b'] }, { texts: 'abc' }, {}, null, 'texts']) {
      expect(() => checkItemCount(body, 'texts', 2)).not.toThrow();
    }
  });
});

describe('checkTextLengths', () => {
  it('names the element of a batch, or the field of a single text, over the limit', () => {
    expect(() => checkTextLengths(['ok', 'too long'], 'text', true, 4)).toThrow(
      refusal('text[1]', 'is 8 characters long, more than the limit of 4'),
    );
    expect(() => checkTextLengths(['too long'], 'query', false, 4)).toThrow(
      refusal('query', 'is 8 characters long, more than the limit of 4'),
    );
    expect(() => checkTextLengths(['four'], 'text', false, 4)).not.toThrow();
  });
});
