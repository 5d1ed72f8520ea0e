import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { sigmoid } from './classify.js';
import { rankTexts } from './rank.js';

const logits = Float32Array.from([0.5, 2, -1, 2]);

describe('rankTexts', () => {
  it('ranks texts by the sigmoid of their logit, best first, ties in request order', () => {
    expect(rankTexts(logits, [4, 1])).toEqual([
      { index: 1, score: sigmoid(2) },
      { index: 3, score: sigmoid(2) },
      { index: 0, score: sigmoid(0.5) },
      { index: 2, score: sigmoid(-1) },
    ]);
  });

  it('answers the logits themselves with raw scores', () => {
    expect(rankTexts(logits, [4, 1], { rawScores: true }).map((r) => r.score)).toEqual([2, 2, 0.5, -1]);
  });

  it('keeps the best top_n and echoes the texts when given them', () => {
    expect(rankTexts(logits, [4, 1], { topN: 2, texts: ['a', 'b', 'c', 'd'] })).toEqual([
      { index: 1, score: sigmoid(2), text: 'b' },
      { index: 3, score: sigmoid(2), text: 'd' },
    ]);
    expect(rankTexts(logits, [4, 1], { topN: 10 })).toHaveLength(4);
  });

  it('refuses an output that is not one logit per text', () => {
    expect(() => rankTexts(logits, [2, 2])).toThrow(
      expect.objectContaining({
        code: ErrorCode.INTERNAL,
        message: 'a text-ranking model must output one logit per text ([batch, 1]); it gave dims [2,2]',
      }),
    );
    expect(() => rankTexts(logits, [4, 1], { texts: ['a'] })).toThrow('4 scores for 1 texts');
  });
});
