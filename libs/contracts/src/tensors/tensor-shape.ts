import { type Int64Like, int64ToBigInt } from './int64-values.js';
import { formatShape, invalidTensorError } from './tensor-errors.js';

/**
 * Number of elements of a tensor of this shape (1 for a scalar `[]`). Throws INVALID_ARGUMENT for
 * a negative, fractional or unsafe dimension, or a product past Number.MAX_SAFE_INTEGER.
 */
export function elementCount(shape: readonly number[], tensorName?: string): number {
  let count = 1;
  for (const [index, dim] of shape.entries()) {
    if (!Number.isSafeInteger(dim) || dim < 0) {
      throw invalidTensorError(
        `shape ${formatShape(shape)} has an invalid dimension ${dim} at index ${index}: dimensions of a ` +
          'concrete tensor are non-negative integers',
        tensorName,
      );
    }
    count *= dim;
  }
  if (!Number.isSafeInteger(count)) {
    throw invalidTensorError(`shape ${formatShape(shape)} has too many elements`, tensorName);
  }
  return count;
}

/** Unsigned decimals short enough that a double holds them exactly. */
const SHORT_DECIMAL = /^\d{1,15}$/;

/**
 * A shape from a proto loader (int64 dims as numbers, strings or Longs) as plain numbers, checked
 * like `elementCount` checks it.
 */
export function normalizeShape(dims: readonly Int64Like[], tensorName?: string): number[] {
  const shape = dims.map((dim) => {
    // The common forms without a BigInt: a safe integer, or up to 15 digits (always exact).
    if (typeof dim === 'number' && Number.isSafeInteger(dim)) return dim;
    if (typeof dim === 'string' && SHORT_DECIMAL.test(dim)) return Number(dim);
    const value = int64ToBigInt(dim, tensorName);
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : Number.NaN;
  });
  elementCount(shape, tensorName);
  return shape;
}
