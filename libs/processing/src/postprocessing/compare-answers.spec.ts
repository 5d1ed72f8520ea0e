import { describe, expect, it } from 'vitest';
import { compareClassifications, compareEmbeddings } from './compare-answers.js';

describe('compareClassifications', () => {
  it('counts rows whose top-1 label agrees and measures the score gap on the primary’s label', () => {
    const primary = [
      [
        { label: 'POSITIVE', score: 0.9 },
        { label: 'NEGATIVE', score: 0.1 },
      ],
      [{ label: 'NEGATIVE', score: 0.7 }],
    ];
    const shadow = [
      [
        { label: 'POSITIVE', score: 0.8 },
        { label: 'NEGATIVE', score: 0.2 },
      ],
      [
        { label: 'POSITIVE', score: 0.6 },
        { label: 'NEGATIVE', score: 0.4 },
      ],
    ];
    const result = compareClassifications(primary, shadow);
    expect(result.rows).toBe(2);
    expect(result.agreeing).toBe(1);
    expect(result.scoreDeltas[0]).toBeCloseTo(0.1, 10);
    expect(result.scoreDeltas[1]).toBeCloseTo(0.3, 10); // NEGATIVE: 0.7 vs 0.4
  });

  it('uses the shadow’s top-1 score when it does not list the primary’s label (top_k 1)', () => {
    const result = compareClassifications([[{ label: 'A', score: 0.6 }]], [[{ label: 'B', score: 0.5 }]]);
    expect(result).toEqual({ rows: 1, agreeing: 0, scoreDeltas: [expect.closeTo(0.1, 10) as number] });
  });

  it('compares only the rows both answers have', () => {
    expect(compareClassifications([[{ label: 'A', score: 1 }]], []).rows).toBe(0);
  });
});

describe('compareEmbeddings', () => {
  it('gives the cosine similarity of each pair of rows', () => {
    const [same, orthogonal, opposite, zero] = compareEmbeddings(
      [
        [1, 2, 3],
        [1, 0],
        [1, 1],
        [0, 0],
      ],
      [
        [2, 4, 6],
        [0, 1],
        [-1, -1],
        [1, 0],
      ],
    );
    expect(same).toBeCloseTo(1, 10);
    expect(orthogonal).toBeCloseTo(0, 10);
    expect(opposite).toBeCloseTo(-1, 10);
    expect(zero).toBe(0);
  });
});
