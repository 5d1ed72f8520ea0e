import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import {
  applySpecialTokensTemplate,
  parseSpecialTokensTemplate,
} from '../tokenizer/special-tokens-template.js';
import {
  type PairTemplate,
  TooManyWindows,
  buildQuestionWindows,
  defaultDocStride,
  planContextWindows,
} from './question-windows.js';

const CLS = 101;
const SEP = 102;
const bert = parseSpecialTokensTemplate(
  { type: 'BertProcessing', cls: ['[CLS]', CLS], sep: ['[SEP]', SEP] },
  () => undefined,
);
const template: PairTemplate = {
  addSpecialTokens: (first, second) => applySpecialTokensTemplate(bert, first, second),
  specialTokenCount: (pair) => (pair ? 3 : 2),
};
const context = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

describe('planContextWindows', () => {
  it('keeps a context that fits, an empty one included, in one window', () => {
    expect(planContextWindows(3, 4, 3)).toEqual([{ from: 0, to: 3 }]);
    expect(planContextWindows(0, 4, 0)).toEqual([{ from: 0, to: 0 }]);
  });

  it('starts each window capacity - stride tokens after the one before until one reaches the end', () => {
    expect(planContextWindows(10, 4, 1)).toEqual([
      { from: 0, to: 4 },
      { from: 3, to: 7 },
      { from: 6, to: 10 },
    ]);
    expect(planContextWindows(9, 4, 2)).toEqual([
      { from: 0, to: 4 },
      { from: 2, to: 6 },
      { from: 4, to: 8 },
      { from: 6, to: 9 },
    ]);
    expect(planContextWindows(8, 4, 0)).toEqual([
      { from: 0, to: 4 },
      { from: 4, to: 8 },
    ]);
  });

  it('refuses a stride that would not move the window', () => {
    expect(() => planContextWindows(10, 4, 4)).toThrow(RangeError);
  });
});

describe('buildQuestionWindows', () => {
  it('builds [CLS] question [SEP] part [SEP] rows with segment ids and overlapping parts', () => {
    const windows = buildQuestionWindows([50, 51], context, template, {
      maxSeqLen: 9,
      docStride: 1,
      field: 'question',
    });
    expect(windows.ranges).toEqual([
      { from: 0, to: 4 },
      { from: 3, to: 7 },
      { from: 6, to: 10 },
    ]);
    expect(windows.rows[0]).toEqual({
      ids: [CLS, 50, 51, SEP, 1, 2, 3, 4, SEP],
      typeIds: [0, 0, 0, 0, 1, 1, 1, 1, 1],
    });
    expect(windows.rows[2]?.ids).toEqual([CLS, 50, 51, SEP, 7, 8, 9, 10, SEP]);
    expect(windows.contextStart).toBe(4);
    expect(windows.leadingSpecial).toBe(true);
  });

  it('cuts the question to max_question_len tokens, which leaves more room for the context', () => {
    const windows = buildQuestionWindows([50, 51, 52, 53], context, template, {
      maxSeqLen: 9,
      docStride: 1,
      maxQuestionLen: 1,
      field: 'question',
    });
    expect(windows.rows[0]?.ids).toEqual([CLS, 50, SEP, 1, 2, 3, 4, 5, SEP]);
    expect(windows.contextStart).toBe(3);
    expect(windows.ranges).toHaveLength(3);
  });

  it('keeps the whole question when no max_question_len is given, as Python does with a fast tokenizer', () => {
    const question = Array.from({ length: 70 }, (_, i) => 100 + i);
    const windows = buildQuestionWindows(question, context, template, {
      maxSeqLen: 83,
      docStride: 1,
      field: 'question',
    });
    expect(windows.rows).toHaveLength(1);
    expect(windows.rows[0]?.ids).toEqual([CLS, ...question, SEP, ...context, SEP]);
    expect(windows.contextStart).toBe(72);
  });

  it('ignores a large doc_stride when the context fits one window', () => {
    const windows = buildQuestionWindows([50], [1, 2], template, {
      maxSeqLen: 9,
      docStride: 8,
      field: 'question',
    });
    expect(windows.rows).toEqual([{ ids: [CLS, 50, SEP, 1, 2, SEP], typeIds: [0, 0, 0, 1, 1, 1] }]);
  });

  it('refuses a doc_stride that is not less than the context tokens of a window, naming the parameter', () => {
    const build = () =>
      buildQuestionWindows([50, 51], context, template, {
        maxSeqLen: 9,
        docStride: 4,
        field: 'question[1]',
      });
    expect(build).toThrow(
      'parameters.doc_stride: 4 must be less than the 4 context tokens a window of 9 tokens holds beside question[1]',
    );
    expect(build).toThrow(expect.objectContaining({ code: ErrorCode.INVALID_ARGUMENT }));
  });

  it('refuses more windows than maxWindows before building any row', () => {
    const build = (maxWindows: number) =>
      buildQuestionWindows([50], context, template, {
        maxSeqLen: 8,
        docStride: 1,
        field: 'question',
        maxWindows,
      });
    expect(build(3).rows).toHaveLength(3);
    expect(() => build(2)).toThrow(TooManyWindows);
    expect(() => build(2)).toThrow(expect.objectContaining({ windows: 3 }));
  });

  it('refuses a question that leaves no room for context', () => {
    expect(() =>
      buildQuestionWindows([50, 51, 52, 53, 54, 55], context, template, {
        maxSeqLen: 9,
        docStride: 1,
        field: 'question',
      }),
    ).toThrow('question: its 6 tokens leave no room for the context in a window of 9 tokens');
  });

  it('defaults the stride to half the window, at most 128', () => {
    expect(defaultDocStride(384)).toBe(128);
    expect(defaultDocStride(64)).toBe(32);
    expect(defaultDocStride(9)).toBe(4);
  });
});
