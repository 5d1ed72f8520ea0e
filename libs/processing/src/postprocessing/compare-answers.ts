/**
 * How a shadow model's answer compares with the primary's on the same input (shadow mirroring):
 * classifications by top-1 label agreement and the score gap, embeddings by cosine similarity.
 * Pure; rows are compared pairwise, extra rows on either side ignored.
 */
import { type ClassScore } from './classify.js';

/** Row by row agreement of two classification answers. */
export interface ClassificationAgreement {
  rows: number;
  /** Rows whose top-1 label is the same. */
  agreeing: number;
  /** Per row, |primary's top-1 score − the shadow's score for that label| (its top-1 when absent). */
  scoreDeltas: number[];
}

/** Compares two `classify` answers (rows of labels, best first). */
export function compareClassifications(
  primary: readonly (readonly ClassScore[])[],
  shadow: readonly (readonly ClassScore[])[],
): ClassificationAgreement {
  const rows = Math.min(primary.length, shadow.length);
  let agreeing = 0;
  const scoreDeltas: number[] = [];
  for (let row = 0; row < rows; row++) {
    const best = primary[row]?.[0];
    const theirs = shadow[row] ?? [];
    if (!best || theirs.length === 0) continue;
    if (theirs[0]?.label === best.label) agreeing++;
    const same = theirs.find((score) => score.label === best.label) ?? theirs[0]!;
    scoreDeltas.push(Math.abs(best.score - same.score));
  }
  return { rows, agreeing, scoreDeltas };
}

/** Cosine similarity of each pair of embedding rows (0 when either is all zeros). */
export function compareEmbeddings(
  primary: readonly (readonly number[])[],
  shadow: readonly (readonly number[])[],
): number[] {
  const rows = Math.min(primary.length, shadow.length);
  const similarities: number[] = [];
  for (let row = 0; row < rows; row++) similarities.push(cosine(primary[row]!, shadow[row]!));
  return similarities;
}

function cosine(a: readonly number[], b: readonly number[]): number {
  const length = Math.min(a.length, b.length);
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < length; i++) {
    dot += a[i]! * b[i]!;
    normA += a[i]! * a[i]!;
    normB += b[i]! * b[i]!;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
