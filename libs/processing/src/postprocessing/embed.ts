// Token embeddings → one vector per input (feature-extraction), as transformers.js
// `pipeline('feature-extraction', …, {pooling, normalize})` and sentence-transformers compute it.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';

/** How token vectors become one vector: mask-weighted mean, or the first ([CLS]) token. */
export type PoolingMode = 'mean' | 'cls';

/** Options of {@link embed}. */
export interface EmbedOptions {
  /** @defaultValue 'mean' */
  pooling?: PoolingMode | undefined;
  /** Scale each vector to unit L2 norm. @defaultValue false */
  normalize?: boolean | undefined;
}

// Guards the division of an all-zero vector (as torch.nn.functional.normalize does).
const NORM_EPSILON = 1e-12;

function shapeError(message: string): ModelgateError {
  return new ModelgateError(ErrorCode.INTERNAL, `embedding output: ${message}`);
}

/** Scales `vector` in place to unit L2 norm (an all-zero vector stays zero). */
export function normalizeL2(vector: number[]): number[] {
  let squares = 0;
  for (const value of vector) squares += value * value;
  const norm = Math.max(Math.sqrt(squares), NORM_EPSILON);
  for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] ?? 0) / norm;
  return vector;
}

function poolRow(
  hidden: ArrayLike<number>,
  row: number,
  sequence: number,
  width: number,
  mask: ArrayLike<number | bigint> | undefined,
  pooling: PoolingMode,
): number[] {
  const base = row * sequence * width;
  const vector = new Array<number>(width).fill(0);
  if (pooling === 'cls') {
    for (let h = 0; h < width; h++) vector[h] = hidden[base + h] ?? 0;
    return vector;
  }
  let count = 0;
  for (let t = 0; t < sequence; t++) {
    const weight = mask === undefined ? 1 : Number(mask[row * sequence + t] ?? 0);
    if (weight === 0) continue;
    count += weight;
    const offset = base + t * width;
    for (let h = 0; h < width; h++) vector[h] = (vector[h] ?? 0) + (hidden[offset + h] ?? 0) * weight;
  }
  // A row with no real tokens pools to zeros rather than NaN.
  const divisor = Math.max(count, 1e-9);
  for (let h = 0; h < width; h++) vector[h] = (vector[h] ?? 0) / divisor;
  return vector;
}

/**
 * One embedding per input from hidden states [n, seq, hidden] (row-major): mean over positions
 * where `attentionMask` ([n, seq]) is non-zero, or the first token; optionally L2-normalized.
 * A [n, hidden] output (an already pooled sentence embedding) is only normalized.
 */
export function embed(
  hidden: ArrayLike<number>,
  dims: readonly number[],
  attentionMask: ArrayLike<number | bigint> | undefined,
  options: EmbedOptions = {},
): number[][] {
  const { pooling = 'mean', normalize = false } = options;
  const finish = (vector: number[]): number[] => (normalize ? normalizeL2(vector) : vector);
  if (dims.length === 2) {
    const [rows = 0, width = 0] = dims;
    if (rows * width !== hidden.length)
      throw shapeError(`dims [${dims.join(',')}] but ${hidden.length} values`);
    return Array.from({ length: rows }, (_, r) =>
      finish(Array.from({ length: width }, (_, h) => hidden[r * width + h] ?? 0)),
    );
  }
  const [rows, sequence, width] = dims;
  if (dims.length !== 3 || rows === undefined || sequence === undefined || width === undefined) {
    throw shapeError(`dims [${dims.join(',')}]; expected [batch, sequence, hidden] or [batch, hidden]`);
  }
  if (rows * sequence * width !== hidden.length) {
    throw shapeError(`dims [${dims.join(',')}] but ${hidden.length} values`);
  }
  if (attentionMask !== undefined && attentionMask.length !== rows * sequence) {
    throw shapeError(`attention mask has ${attentionMask.length} values, expected ${rows * sequence}`);
  }
  return Array.from({ length: rows }, (_, r) =>
    finish(poolRow(hidden, r, sequence, width, attentionMask, pooling)),
  );
}

/**
 * Every token's vector from hidden states [n, seq, hidden] (row-major), one list per input holding
 * the positions where `attentionMask` ([n, seq]) is non-zero, in order (padding left out);
 * optionally each L2-normalized. A [n, hidden] output (already pooled) has no token vectors.
 */
export function tokenEmbeddings(
  hidden: ArrayLike<number>,
  dims: readonly number[],
  attentionMask: ArrayLike<number | bigint> | undefined,
  normalize = false,
): number[][][] {
  const [rows, sequence, width] = dims;
  if (dims.length !== 3 || rows === undefined || sequence === undefined || width === undefined) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      'parameters.pooling: none needs token vectors, and this model outputs pooled embeddings',
      { field: 'parameters.pooling' },
    );
  }
  if (rows * sequence * width !== hidden.length) {
    throw shapeError(`dims [${dims.join(',')}] but ${hidden.length} values`);
  }
  return Array.from({ length: rows }, (_, r) => {
    const vectors: number[][] = [];
    for (let t = 0; t < sequence; t++) {
      if (attentionMask !== undefined && Number(attentionMask[r * sequence + t] ?? 0) === 0) continue;
      const offset = (r * sequence + t) * width;
      const vector = Array.from({ length: width }, (_, h) => hidden[offset + h] ?? 0);
      vectors.push(normalize ? normalizeL2(vector) : vector);
    }
    return vectors;
  });
}

/**
 * `vector` cut to its first `dimensions` (Matryoshka; all of it when undefined), then L2-normalized
 * when `normalize`: what OpenAI's and TEI's `dimensions` answer. INVALID_ARGUMENT naming
 * `dimensions` when it is more than the vector has.
 */
export function shortenEmbedding(
  vector: readonly number[],
  dimensions: number | undefined,
  normalize: boolean,
): number[] {
  if (dimensions !== undefined && dimensions > vector.length) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `dimensions: ${dimensions} is more than the model's ${vector.length}`,
      { field: 'dimensions' },
    );
  }
  const kept = vector.slice(0, dimensions ?? vector.length);
  return normalize ? normalizeL2(kept) : kept;
}
