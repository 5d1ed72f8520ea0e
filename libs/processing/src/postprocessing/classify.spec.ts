import { ErrorCode } from '@modelgate/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classify, resolveClassifyOptions, sigmoid, softmax, topKIndices } from './classify.js';

const LABELS = ['NEGATIVE', 'POSITIVE'];

describe('softmax', () => {
  it('turns logits into probabilities', () => {
    const [a = 0, b = 0] = softmax([0, Math.log(3)]);
    expect(a).toBeCloseTo(0.25, 12);
    expect(b).toBeCloseTo(0.75, 12);
  });

  it('stays finite for huge logits', () => {
    expect(Array.from(softmax([1000, 1000]))).toEqual([0.5, 0.5]);
    expect(Array.from(softmax([-1e30, 0]))).toEqual([0, 1]);
  });

  it('gives rows that sum to 1 with every value in [0, 1] (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.float({ min: -1e4, max: 1e4, noNaN: true }), { minLength: 1, maxLength: 50 }),
        (row) => {
          const probabilities = Array.from(softmax(row));
          expect(probabilities.reduce((s, p) => s + p, 0)).toBeCloseTo(1, 9);
          expect(probabilities.every((p) => p >= 0 && p <= 1)).toBe(true);
        },
      ),
    );
  });
});

describe('sigmoid', () => {
  it('is 0.5 at 0, symmetric, and saturates without NaN', () => {
    expect(sigmoid(0)).toBe(0.5);
    expect(sigmoid(2) + sigmoid(-2)).toBeCloseTo(1, 15);
    expect(sigmoid(-1000)).toBe(0);
    expect(sigmoid(1000)).toBe(1);
  });
});

describe('topKIndices', () => {
  it('returns the k largest, largest first, lower index first on ties, capped at the length', () => {
    expect(topKIndices([0.1, 0.5, 0.5, 0.2], 3)).toEqual([1, 2, 3]);
    expect(topKIndices([1, 2], 5)).toEqual([1, 0]);
  });
});

describe('classify', () => {
  const logits = Float32Array.from([0, Math.log(3), 2, 0]);

  it('returns the best label per row by default for single-label models (the pipeline default)', () => {
    const [first, second] = classify(logits, [2, 2], { labels: LABELS });
    expect(first).toEqual([{ label: 'POSITIVE', score: expect.closeTo(0.75, 6) as number }]);
    expect(second).toHaveLength(1);
    expect(second?.[0]?.label).toBe('NEGATIVE');
  });

  it('returns top_k labels per row, best first', () => {
    const [first] = classify(logits, [2, 2], { labels: LABELS, topK: 2 });
    expect(first?.map((s) => s.label)).toEqual(['POSITIVE', 'NEGATIVE']);
    expect(first?.reduce((sum, s) => sum + s.score, 0)).toBeCloseTo(1, 6);
    expect(classify(logits, [2, 2], { labels: LABELS, topK: 10 })[0]).toHaveLength(2);
  });

  it('scores multi-label models with independent sigmoids and returns every label by default', () => {
    const [row] = classify(Float32Array.from([0, 2, -2]), [1, 3], {
      labels: ['a', 'b', 'c'],
      multiLabel: true,
    });
    expect(row?.map((s) => s.label)).toEqual(['b', 'a', 'c']);
    expect(row?.map((s) => s.score)).toEqual([sigmoid(2), 0.5, sigmoid(-2)]);
  });

  it('names labels LABEL_<i> when the model has none', () => {
    expect(classify([1, 0], [1, 2])[0]?.[0]?.label).toBe('LABEL_0');
  });

  it('throws INTERNAL when the output shape and the labels disagree', () => {
    const internal: unknown = expect.objectContaining({ code: ErrorCode.INTERNAL });
    expect(() => classify([1, 2, 3], [2, 2])).toThrow(internal);
    expect(() => classify([1, 2], [1, 2], { labels: ['only'] })).toThrow(
      /2 scores per input but has 1 labels/,
    );
    expect(() => classify([1, 2], [2])).toThrow(internal);
  });
});

describe('resolveClassifyOptions', () => {
  it('prefers the request top_k, then the endpoint, and takes labels and multi-label from the model', () => {
    expect(
      resolveClassifyOptions({
        requestTopK: 3,
        postprocessing: { topK: 2 },
        modelConfig: { labels: ['x', 'y'], multiLabel: true },
      }),
    ).toEqual({ labels: ['x', 'y'], multiLabel: true, topK: 3 });
    expect(
      resolveClassifyOptions({
        postprocessing: { topK: 2, multiLabel: false },
        modelLabels: ['a'],
        modelConfig: { labels: ['x'], multiLabel: true },
      }),
    ).toEqual({ labels: ['a'], multiLabel: false, topK: 2 });
  });
});

describe('classify: one output', () => {
  it('scores a one-output model by sigmoid (a softmax over one value is always 1), a regression model raw', () => {
    const logits = [2, -1];
    expect(classify(logits, [2, 1]).map((row) => row[0]?.score)).toEqual([sigmoid(2), sigmoid(-1)]);
    const regression = resolveClassifyOptions({ modelConfig: { problemType: 'regression' } });
    expect(classify(logits, [2, 1], regression).map((row) => row[0]?.score)).toEqual([2, -1]);
    // Two or more labels still take the softmax.
    expect(classify([0, 0], [1, 2], { topK: 2 })[0]?.map((score) => score.score)).toEqual([0.5, 0.5]);
  });
});

describe('classify: function_to_apply', () => {
  it("overrides the model's own function: softmax, sigmoid or the logits", () => {
    const logits = [2, -1];
    const scores = (functionToApply: 'softmax' | 'sigmoid' | 'none') =>
      classify(logits, [1, 2], { functionToApply, topK: Infinity, labels: ['a', 'b'] })[0]?.map(
        (s) => s.score,
      );
    expect(scores('none')).toEqual([2, -1]);
    expect(scores('sigmoid')).toEqual([sigmoid(2), sigmoid(-1)]);
    expect(scores('softmax')).toEqual(Array.from(softmax(logits)));
    // A regression model's scores are its outputs unless the request asks otherwise.
    const regression = resolveClassifyOptions({
      modelConfig: { problemType: 'regression' },
      requestFunction: 'sigmoid',
    });
    expect(classify([0], [1, 1], regression)[0]?.[0]?.score).toBe(0.5);
  });

  it('answers every label for top_k Infinity (a request top_k of null)', () => {
    expect(classify([1, 3, 2], [1, 3], { topK: Infinity })[0]?.map((s) => s.label)).toEqual([
      'LABEL_1',
      'LABEL_2',
      'LABEL_0',
    ]);
  });
});
