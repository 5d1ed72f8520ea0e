import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { parseQuestionAnsweringRequest } from './question-answering-request.js';
import { parseServeRequest } from './serve-request.js';

const limits = { maxInputChars: 100, maxBatchItems: 3, truncation: true };

function errorOf(body: unknown): { code: string; message: string; details: unknown } {
  try {
    parseQuestionAnsweringRequest(body, limits);
  } catch (error) {
    return error as { code: string; message: string; details: unknown };
  }
  throw new Error('expected the body to be refused');
}

describe('parseQuestionAnsweringRequest', () => {
  it("fills in the pipeline's defaults for one pair, leaving the question uncut (Python's fast path)", () => {
    expect(parseQuestionAnsweringRequest({ question: 'Who?', context: 'Ann did.' }, limits)).toEqual({
      pairs: [{ question: 'Who?', context: 'Ann did.' }],
      batch: false,
      options: { topK: 1, maxAnswerLen: 15, handleImpossibleAnswer: false },
    });
  });

  it('takes every parameter', () => {
    const request = parseQuestionAnsweringRequest(
      {
        question: 'Who?',
        context: 'Ann did.',
        parameters: {
          top_k: 3,
          doc_stride: 0,
          max_answer_len: 4,
          max_question_len: 8,
          handle_impossible_answer: true,
        },
      },
      limits,
    );
    expect(request.options).toEqual({
      topK: 3,
      docStride: 0,
      maxAnswerLen: 4,
      maxQuestionLen: 8,
      handleImpossibleAnswer: true,
    });
  });

  it('pairs arrays element by element, and an array of questions with one context', () => {
    expect(
      parseQuestionAnsweringRequest({ question: ['a', 'b'], context: ['x', 'y'] }, limits).pairs,
    ).toEqual([
      { question: 'a', context: 'x' },
      { question: 'b', context: 'y' },
    ]);
    const about = parseQuestionAnsweringRequest({ question: ['a', 'b'], context: 'x' }, limits);
    expect(about.batch).toBe(true);
    expect(about.pairs).toEqual([
      { question: 'a', context: 'x' },
      { question: 'b', context: 'x' },
    ]);
    expect(parseQuestionAnsweringRequest({ question: 'a', context: ['x', 'y'] }, limits).pairs).toEqual([
      { question: 'a', context: 'x' },
      { question: 'a', context: 'y' },
    ]);
  });

  it('refuses arrays of different lengths', () => {
    expect(errorOf({ question: ['a', 'b'], context: ['x'] })).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: { field: 'context' },
    });
  });

  it('refuses an empty question or context, as the Python pipeline does, naming the element', () => {
    expect(errorOf({ question: '', context: 'x' })).toMatchObject({
      message: 'question: must not be empty',
      details: { field: 'question' },
    });
    expect(errorOf({ question: ['a', 'b'], context: ['x', ''] })).toMatchObject({
      message: 'context[1]: must not be empty',
    });
    expect(errorOf({ question: [], context: [] })).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    // An empty list beside a string used to pair the string with '' and answer 200.
    expect(errorOf({ question: [], context: 'My name is Wolfgang' })).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: 'question: must hold at least one entry',
    });
    expect(errorOf({ question: 'Where?', context: [] })).toMatchObject({
      message: 'context: must hold at least one entry',
    });
  });

  it('bounds top_k, whose span search grows with it', () => {
    expect(errorOf({ question: 'a', context: 'b', parameters: { top_k: 101 } }).message).toBe(
      'invalid request body: parameters.top_k: must be an integer from 1 to 100',
    );
    // max_answer_len needs no bound: no span is longer than its window.
    const long = parseQuestionAnsweringRequest(
      { question: 'a', context: 'b', parameters: { max_answer_len: 1000 } },
      limits,
    );
    expect(long.options.maxAnswerLen).toBe(1000);
  });

  it('refuses parameters out of range and unknown fields, naming them', () => {
    for (const parameters of [
      { top_k: 0 },
      { max_answer_len: 0 },
      { max_question_len: 1.5 },
      { doc_stride: -1 },
    ]) {
      const error = errorOf({ question: 'a', context: 'b', parameters });
      expect(error.code).toBe(ErrorCode.INVALID_ARGUMENT);
      expect(error.message).toContain(`parameters.${Object.keys(parameters)[0]}`);
    }
    expect(errorOf({ question: 'a', context: 'b', parameters: { truncation: true } }).message).toContain(
      'parameters.truncation',
    );
    expect(errorOf({ text: 'a', question: 'a', context: 'b' }).message).toContain('text');
    expect(errorOf({ context: 'b' }).message).toContain('question');
  });

  it('bounds pairs by maxBatchItems and texts by maxInputChars', () => {
    expect(errorOf({ question: ['a', 'b', 'c', 'd'], context: 'x' })).toMatchObject({
      code: ErrorCode.PAYLOAD_TOO_LARGE,
      details: { field: 'question' },
    });
    expect(errorOf({ question: 'a', context: 'x'.repeat(101) })).toMatchObject({
      code: ErrorCode.PAYLOAD_TOO_LARGE,
      details: { field: 'context' },
    });
  });

  it('is what parseServeRequest parses for a question-answering endpoint', () => {
    const request = parseServeRequest({ question: ['a', 'b'], context: 'x' }, limits, {
      task: 'question-answering',
    });
    expect(request.questionAnswering?.pairs).toHaveLength(2);
    expect(request.batch).toBe(true);
    expect(() => parseServeRequest({ text: 'x' }, limits, { task: 'question-answering' })).toThrow(
      'question',
    );
  });
});
