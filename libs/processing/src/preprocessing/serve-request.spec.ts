import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { parseServeRequest } from './serve-request.js';

const LIMITS = { maxInputChars: 20, maxBatchItems: 3, truncation: true };

function errorOf(body: unknown, options = {}): { code: string; field: string | undefined; message: string } {
  try {
    parseServeRequest(body, LIMITS, options);
  } catch (error) {
    const { code, details, message } = error as {
      code: string;
      details: { field?: string };
      message: string;
    };
    return { code, field: details.field, message };
  }
  throw new Error('expected the body to be refused');
}

describe('parseServeRequest', () => {
  it('reads a single text as a one-element, non-batch request with the endpoint truncation default', () => {
    expect(parseServeRequest({ text: 'hello' }, LIMITS)).toEqual({
      texts: ['hello'],
      batch: false,
      truncation: true,
    });
  });

  it('reads a batch, pairs and parameters', () => {
    expect(
      parseServeRequest(
        { text: ['a', 'b'], text_pair: ['c', 'd'], parameters: { top_k: 2, truncation: false } },
        LIMITS,
      ),
    ).toEqual({ texts: ['a', 'b'], pairs: ['c', 'd'], batch: true, topK: 2, truncation: false });
    expect(parseServeRequest({ text: 'a', text_pair: '' }, LIMITS).pairs).toEqual(['']);
  });

  it("reads the task options: every label (top_k null), the scores' function, an embedding's pooling and norm", () => {
    expect(
      parseServeRequest({ text: 'a', parameters: { top_k: null, function_to_apply: 'none' } }, LIMITS, {
        task: 'text-classification',
      }),
    ).toMatchObject({ topK: Infinity, functionToApply: 'none' });
    expect(
      parseServeRequest({ text: 'a', parameters: { pooling: 'none', normalize: false } }, LIMITS, {
        task: 'feature-extraction',
      }),
    ).toMatchObject({ pooling: 'none', normalize: false });
    expect(errorOf({ text: 'a', parameters: { normalize: true } }, { task: 'text-classification' })).toEqual({
      code: ErrorCode.INVALID_ARGUMENT,
      field: 'parameters.normalize',
      message: 'parameters.normalize: applies to feature-extraction, not text-classification',
    });
    expect(
      errorOf({ text: 'a', parameters: { function_to_apply: 'none' } }, { task: 'feature-extraction' }).field,
    ).toBe('parameters.function_to_apply');
    expect(
      errorOf({ text: 'a', parameters: { pooling: 'max' } }, { task: 'feature-extraction' }).message,
    ).toContain("must be 'mean', 'cls' or 'none'");
  });

  it.each([
    [{}, 'text', /text: is required/],
    [{ text: 3 }, 'text', /must be a string or an array of strings/],
    [{ text: ['a', 2] }, 'text[1]', /text\[1\]: must be a string/],
    [{ text: 'a', foo: 1 }, 'foo', /foo: is not a known field/],
    [{ text: 'a', parameters: { top_k: 0 } }, 'parameters.top_k', /positive integer/],
    [{ text: 'a', parameters: { top_k: 1.5 } }, 'parameters.top_k', /positive integer/],
    [{ text: 'a', parameters: { truncation: 'yes' } }, 'parameters.truncation', /true or false/],
    [{ text: 'a', parameters: { temperature: 1 } }, 'parameters.temperature', /not a known field/],
    [null, '(root)', /must be a JSON object/],
    [['a'], '(root)', /must be a JSON object/],
  ])('answers 400 naming the field for %j', (body, field, message) => {
    const error = errorOf(body);
    expect(error).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, field });
    expect(error.message).toMatch(message);
  });

  it('refuses an empty batch', () => {
    expect(errorOf({ text: [] })).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, field: 'text' });
  });

  it('answers 413 for a batch over maxBatchItems', () => {
    const error = errorOf({ text: ['a', 'b', 'c', 'd'] });
    expect(error).toMatchObject({ code: ErrorCode.PAYLOAD_TOO_LARGE, field: 'text' });
    expect(error.message).toMatch(/4 texts, more than the limit of 3/);
  });

  it('answers 413 naming text[i] for a text over maxInputChars', () => {
    const long = 'x'.repeat(21);
    expect(errorOf({ text: ['ok', long] })).toMatchObject({
      code: ErrorCode.PAYLOAD_TOO_LARGE,
      field: 'text[1]',
    });
    expect(errorOf({ text: long })).toMatchObject({ code: ErrorCode.PAYLOAD_TOO_LARGE, field: 'text' });
    expect(errorOf({ text: ['a'], text_pair: [long] })).toMatchObject({ field: 'text_pair[0]' });
  });

  it('requires text_pair to match text in kind and length', () => {
    expect(errorOf({ text: ['a', 'b'], text_pair: ['c'] })).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      field: 'text_pair',
    });
    expect(errorOf({ text: 'a', text_pair: ['c'] })).toMatchObject({ field: 'text_pair' });
    expect(errorOf({ text: ['a'], text_pair: 'c' })).toMatchObject({ field: 'text_pair' });
  });

  it('refuses fields of another task', () => {
    const task = { task: 'feature-extraction' } as const;
    expect(errorOf({ text: 'a', parameters: { top_k: 1 } }, task)).toMatchObject({
      field: 'parameters.top_k',
    });
    expect(errorOf({ text: 'a', text_pair: 'b' }, task)).toMatchObject({ field: 'text_pair' });
    expect(parseServeRequest({ text: 'a', parameters: { truncation: false } }, LIMITS, task).truncation).toBe(
      false,
    );
  });
});
