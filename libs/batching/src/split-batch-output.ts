/**
 * The inverse of packing: cuts a batch output [batch, ...] back into one tensor per request. For
 * sequence outputs (last_hidden_state [b, s, h], token logits [b, s, labels]) each request's
 * slice is also cut back from the padded length to its own sequence length, so it equals what the
 * request would have got unbatched.
 */
import {
  type BatchLayout,
  type NumericArray,
  type TensorData,
  allocLike,
  checkTensor,
  copyInto,
  elementCount,
  invalidTensor,
  viewOf,
} from './batch-layout.js';

/** Options of {@link splitBatchOutput}. */
export interface SplitBatchOutputOptions {
  /**
   * The output's sequence axis (1 for [b, s, h]), cut back to each request's own length. Leave it
   * out for outputs without one ([b, labels], pooled [b, h]); {@link sequenceAxisOf} finds it from
   * the output's declared dims.
   * @defaultValue undefined (no sequence axis)
   */
  readonly sequenceAxis?: number;
  /**
   * The output's name, for error messages.
   * @defaultValue 'output'
   */
  readonly name?: string;
}

/**
 * The sequence axis of an output from its declared dims (ModelSpec `outputs[].dims`, where a
 * dynamic dim is negative): the first dynamic dim after the batch axis, e.g. 1 for
 * last_hidden_state [-1, -1, 384], undefined for logits [-1, 2].
 */
export function sequenceAxisOf(declaredDims: readonly number[]): number | undefined {
  const axis = declaredDims.findIndex((dim, index) => index > 0 && dim < 0);
  return axis > 0 ? axis : undefined;
}

/**
 * Splits `data` of `dims` [layout.batch, ...] into one tensor per request of `layout`, in layout
 * order. Slices without a sequence cut are views sharing `data`'s buffer; cut ones are copies.
 * Throws INVALID_ARGUMENT when the output does not match the layout.
 */
export function splitBatchOutput<T extends NumericArray>(
  data: T,
  dims: readonly number[],
  layout: BatchLayout,
  options: SplitBatchOutputOptions = {},
): TensorData<T>[] {
  const name = options.name ?? 'output';
  checkTensor(name, data, dims);
  if (dims[0] !== layout.batch) {
    throw invalidTensor(name, `${name} has ${dims[0]} rows, the batch ${layout.batch}`);
  }
  const rowSize = elementCount(dims.slice(1));
  const axis = options.sequenceAxis;
  const padded = layout.sequenceLength;
  if (axis === undefined || padded === undefined) {
    return layout.requests.map(({ firstRow, rows }) => ({
      data: viewOf(data, firstRow * rowSize, (firstRow + rows) * rowSize),
      dims: [rows, ...dims.slice(1)],
    }));
  }
  if (!Number.isSafeInteger(axis) || axis < 1 || axis >= dims.length) {
    throw invalidTensor(name, `${name} has no axis ${axis} to cut (dims [${dims.join(', ')}])`);
  }
  if (dims[axis] !== padded) {
    throw invalidTensor(name, `${name} axis ${axis} is ${dims[axis]}, not the padded length ${padded}`);
  }
  // Row-major [rows, outer..., seq, inner...]: each (row, outer) block holds `padded` runs of
  // `inner` elements, of which a request keeps the first `own`.
  const outer = elementCount(dims.slice(1, axis));
  const inner = elementCount(dims.slice(axis + 1));
  return layout.requests.map(({ firstRow, rows, sequenceLength }) => {
    const own = sequenceLength ?? padded;
    if (own > padded)
      throw invalidTensor(name, `a request of length ${own} exceeds the padded length ${padded}`);
    const ownDims = dims.map((dim, index) => (index === 0 ? rows : index === axis ? own : dim));
    if (own === padded) {
      return { data: viewOf(data, firstRow * rowSize, (firstRow + rows) * rowSize), dims: ownDims };
    }
    const cut = allocLike(data, rows * outer * own * inner);
    const keep = own * inner;
    for (let block = 0; block < rows * outer; block++) {
      const from = (firstRow * outer + block) * padded * inner;
      copyInto(cut, viewOf(data, from, from + keep), block * keep);
    }
    return { data: cut, dims: ownDims };
  });
}
