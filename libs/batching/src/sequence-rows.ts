/**
 * Real lengths of right-padded token rows, and the way back. A row whose attention mask ends in
 * zeros is padding from there on; cutting those positions off is exact for encoders (a masked
 * position influences no other position, and positions before it keep their ids), so the batcher
 * groups and pads rows by their real lengths, and outputs with a sequence axis are padded back to
 * the width the caller sent (zeros at the positions it had masked).
 */
import {
  type NumericArray,
  type TensorData,
  allocLike,
  checkTensor,
  copyInto,
  elementCount,
  invalidTensor,
  viewOf,
} from './batch-layout.js';

/** A row's real length: one past its last non-zero mask position, at least 1 (an all-zero mask keeps 1). */
export function realLength(mask: ArrayLike<number | bigint>): number {
  for (let i = mask.length - 1; i > 0; i--) {
    const value = mask[i];
    if (value !== 0 && value !== 0n) return i + 1;
  }
  return 1;
}

/**
 * `tensor` ([rows, outer..., length, inner...]) padded with zeros along `axis` to `width`. The
 * same tensor when it already has that width; INVALID_ARGUMENT when it is wider.
 */
export function padSequenceAxis<T extends NumericArray>(
  tensor: TensorData<T>,
  axis: number,
  width: number,
  name = 'output',
): TensorData<T> {
  const { data, dims } = tensor;
  checkTensor(name, data, dims);
  const own = dims[axis];
  if (own === undefined || axis < 1) throw invalidTensor(name, `${name} has no axis ${axis}`);
  if (own === width) return tensor;
  if (own > width) throw invalidTensor(name, `${name} axis ${axis} is ${own}, wider than ${width}`);
  const blocks = elementCount(dims.slice(0, axis));
  const inner = elementCount(dims.slice(axis + 1));
  const padded = allocLike(data, blocks * width * inner);
  for (let block = 0; block < blocks; block++) {
    const from = block * own * inner;
    copyInto(padded, viewOf(data, from, from + own * inner), block * width * inner);
  }
  return { data: padded, dims: dims.map((dim, index) => (index === axis ? width : dim)) };
}
