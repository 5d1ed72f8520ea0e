import { describe, expect, it } from 'vitest';
import { type AnswerWindow, type ContextTokens, type SpanLogits, decodeAnswerSpans } from './answer-spans.js';

// Rows are [CLS] q [SEP] c… [SEP] (pad…): context tokens start at position 3.
const MASKED = -10000;
const options = { topK: 1, maxAnswerLen: 15, handleImpossibleAnswer: false };

function softmax(values: number[]): number[] {
  const max = Math.max(...values);
  const exps = values.map((v) => Math.exp(v - max));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / sum);
}

/** Start and end probabilities of a row as the pipeline computes them: kept positions, the rest -10000. */
function probabilities(row: number[], kept: number[]): number[] {
  return softmax(row.map((value, i) => (kept.includes(i) ? value : MASKED)));
}

function logitsOf(starts: number[][], ends: number[][]): SpanLogits {
  return { start: starts.flat(), end: ends.flat(), sequence: starts[0]?.length ?? 0 };
}

function window(row: number, from: number, to: number): AnswerWindow {
  return { row, contextStart: 3, from, to, leadingSpecial: true };
}

// "Strawberries grow 🤗 here": straw ##berries | grow | [UNK] | here
const context = 'Strawberries grow 🤗 here';
const tokens: ContextTokens = {
  offsets: [
    [0, 5],
    [5, 12],
    [13, 17],
    [18, 19],
    [20, 24],
  ],
  wordIds: [0, 0, 1, 2, 3],
};

describe('decodeAnswerSpans', () => {
  it('scores the best span as start × end probability over the context and [CLS] only', () => {
    const start = [5, 9, 9, 0, 1, 4, 0, 2, 9];
    const end = [5, 9, 9, 0, 0, 1, 0, 3, 9];
    const [answer] = decodeAnswerSpans(logitsOf([start], [end]), [window(0, 0, 5)], context, tokens, options);
    const kept = [0, 3, 4, 5, 6, 7];
    const expected = (probabilities(start, kept)[5] ?? 0) * (probabilities(end, kept)[7] ?? 0);
    // Start on "grow" (5), end on "here" (7): the question and [SEP] logits of 9 never count.
    expect(answer?.answer).toBe('grow 🤗 here');
    expect(answer?.start).toBe(13);
    expect(answer?.end).toBe(24);
    expect(answer?.score).toBeCloseTo(expected, 12);
  });

  it('widens a span that starts inside a word to the whole word, offsets in code points', () => {
    const start = [0, 0, 0, 0, 6, 0, 0, 0, 0];
    const end = [0, 0, 0, 0, 6, 0, 0, 0, 0];
    const [answer] = decodeAnswerSpans(logitsOf([start], [end]), [window(0, 0, 5)], context, tokens, options);
    expect(answer).toMatchObject({ answer: 'Strawberries', start: 0, end: 12 });
    const after = decodeAnswerSpans(
      logitsOf([[0, 0, 0, 0, 0, 0, 0, 6, 0]], [[0, 0, 0, 0, 0, 0, 0, 6, 0]]),
      [window(0, 0, 5)],
      context,
      tokens,
      options,
    );
    expect(after[0]).toMatchObject({ answer: 'here', start: 20, end: 24 });
  });

  it('never answers longer than max_answer_len tokens', () => {
    const start = [0, 0, 0, 8, 0, 0, 0, 0, 0];
    const end = [0, 0, 0, 0, 0, 0, 0, 8, 0];
    const logits = logitsOf([start], [end]);
    const long = decodeAnswerSpans(logits, [window(0, 0, 5)], context, tokens, options);
    expect(long[0]?.answer).toBe(context);
    const short = decodeAnswerSpans(logits, [window(0, 0, 5)], context, tokens, {
      ...options,
      maxAnswerLen: 2,
    });
    expect(short[0]?.answer).not.toBe(context);
    for (const answer of decodeAnswerSpans(logits, [window(0, 0, 5)], context, tokens, {
      ...options,
      maxAnswerLen: 2,
      topK: 20,
    })) {
      expect(answer.answer.split(' ').length).toBeLessThanOrEqual(2);
    }
  });

  it('returns top_k distinct answers best first, merging spans that give the same text', () => {
    const start = [0, 0, 0, 3, 3, 0, 0, 1, 0];
    const end = [0, 0, 0, 0, 3, 0, 0, 1, 0];
    const answers = decodeAnswerSpans(logitsOf([start], [end]), [window(0, 0, 5)], context, tokens, {
      ...options,
      topK: 3,
    });
    // straw..##berries and ##berries..##berries both widen to "Strawberries": one answer, scores summed.
    const kept = [0, 3, 4, 5, 6, 7];
    const ps = probabilities(start, kept);
    const pe = probabilities(end, kept);
    expect(answers[0]?.answer).toBe('Strawberries');
    expect(answers[0]?.score).toBeCloseTo((ps[3] ?? 0) * (pe[4] ?? 0) + (ps[4] ?? 0) * (pe[4] ?? 0), 12);
    expect(answers.map((a) => a.answer)).not.toContain(undefined);
    expect(new Set(answers.map((a) => a.answer.toLowerCase())).size).toBe(answers.length);
    expect(answers.map((a) => a.score)).toEqual([...answers.map((a) => a.score)].sort((a, b) => b - a));
  });

  it('reads each window from its own row and maps its tokens back to the whole context', () => {
    // Window 0 holds tokens 0..2, window 1 tokens 2..4 (token 2, "grow", in both).
    const first = [0, 0, 0, 0, 0, 0, 0, 0];
    const second = [0, 0, 0, 0, 7, 0, 0, 0]; // position 4 of window 1 = token 3, "🤗"
    const answers = decodeAnswerSpans(
      logitsOf([first, second], [first, second]),
      [window(0, 0, 3), window(1, 2, 5)],
      context,
      tokens,
      options,
    );
    expect(answers[0]).toMatchObject({ answer: '🤗', start: 18, end: 19 });
  });

  it('adds the null answer with the least [CLS] score over the windows when impossible answers are allowed', () => {
    const first = [4, 0, 0, 0, 0, 0, 0, 0];
    const second = [1, 0, 0, 0, 0, 0, 0, 0];
    const logits = logitsOf([first, second], [first, second]);
    const windows = [window(0, 0, 3), window(1, 2, 5)];
    const answers = decodeAnswerSpans(logits, windows, context, tokens, {
      ...options,
      topK: 50,
      handleImpossibleAnswer: true,
    });
    const nullOf = (row: number[], to: number) => {
      const kept = [0, 3, 4, 5].slice(0, to);
      return (probabilities(row, kept)[0] ?? 0) ** 2;
    };
    const nullAnswer = answers.find((a) => a.answer === '');
    expect(nullAnswer).toMatchObject({ answer: '', start: 0, end: 0 });
    expect(nullAnswer?.score).toBeCloseTo(Math.min(nullOf(first, 4), nullOf(second, 4)), 12);
    const best = decodeAnswerSpans(logits, windows, context, tokens, {
      ...options,
      handleImpossibleAnswer: true,
    });
    expect(best).toEqual([nullAnswer]);
    expect(decodeAnswerSpans(logits, windows, context, tokens, options)[0]?.answer).not.toBe('');
  });

  it('ends an answer where its last word’s last token ends, before a character the normalizer removed', () => {
    // "Berlin\u200b cafe\u0301s" as berlin | cafe ##s, aligned as Rust tokenizers align them:
    // [0, 6], [8, 12], [13, 14]; the removed U+200B and accent lie in no token.
    const text = 'Berlin\u200b cafe\u0301s';
    const placed: ContextTokens = {
      offsets: [
        [0, 6],
        [8, 12],
        [13, 14],
      ],
      wordIds: [0, 1, 1],
    };
    const best = (position: number) => {
      const row = [0, 0, 0, 0, 0, 0, 0];
      row[position] = 8;
      return row;
    };
    const answerOf = (start: number, end: number) =>
      decodeAnswerSpans(logitsOf([best(start)], [best(end)]), [window(0, 0, 3)], text, placed, options)[0];
    expect(answerOf(3, 3)).toMatchObject({ answer: 'Berlin', start: 0, end: 6 });
    // A span on "##s" alone widens to its word, "cafe\u0301s", whose kept characters surround the accent.
    expect(answerOf(5, 5)).toMatchObject({ answer: 'cafe\u0301s', start: 8, end: 14 });
  });

  it('leaves out spans whose tokens cannot be placed in the context', () => {
    const unplaced: ContextTokens = {
      offsets: [undefined, undefined, undefined, undefined, undefined],
      wordIds: [],
    };
    const row = [0, 0, 0, 1, 2, 3, 4, 5, 0];
    expect(decodeAnswerSpans(logitsOf([row], [row]), [window(0, 0, 5)], context, unplaced, options)).toEqual(
      [],
    );
  });
});
