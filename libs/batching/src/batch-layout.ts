import { ErrorCode, ModelgateError } from '@modelgate/contracts';

/** A typed array of a numeric tensor dtype, as onnxruntime and the Open Inference Protocol hold them. */
export type NumericArray =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

/** A tensor as flat row-major data plus dims: the pair an ORT `Tensor` is built from. */
export interface TensorData<T extends NumericArray = NumericArray> {
  readonly data: T;
  readonly dims: readonly number[];
}

/** Where one request's rows sit in a batch. */
export interface RequestRows {
  /** Index of its first row along the batch axis (dim 0). */
  readonly firstRow: number;
  /** How many rows it has (dim 0 of its own tensors; 1 for a [1, seq] request). */
  readonly rows: number;
  /** Its own sequence length before padding; absent when the batch was not padded. */
  readonly sequenceLength?: number;
}

/** How a batch was assembled, so that {@link splitBatchOutput} can cut its outputs back. */
export interface BatchLayout {
  /** Rows in the batch (dim 0 of every input). */
  readonly batch: number;
  /** The padded sequence length (dim 1 of the inputs); absent when the batch was concatenated. */
  readonly sequenceLength?: number;
  /** One entry per request, in batch order. */
  readonly requests: readonly RequestRows[];
}

/** Number of elements a tensor of `dims` holds. */
export function elementCount(dims: readonly number[]): number {
  return dims.reduce((product, dim) => product * dim, 1);
}

/** A zero-filled typed array of the same dtype as `like`. */
export function allocLike<T extends NumericArray>(like: T, length: number): T {
  const Ctor = like.constructor as new (length: number) => T;
  return new Ctor(length);
}

/** A view (no copy) of `data[start, end)`, same dtype. */
export function viewOf<T extends NumericArray>(data: T, start: number, end: number): T {
  return data.subarray(start, end) as T;
}

/** Copies `source` into `target` at `offset`; both of one dtype. */
export function copyInto<T extends NumericArray>(target: T, source: T, offset: number): void {
  (target as unknown as { set(source: T, offset: number): void }).set(source, offset);
}

/** Checks that `dims` are non-negative integers and that `data` holds exactly that many elements. */
export function checkTensor(field: string, data: { readonly length: number }, dims: readonly number[]): void {
  if (dims.length === 0 || !dims.every((dim) => Number.isSafeInteger(dim) && dim >= 0)) {
    throw invalidTensor(field, `${field} has invalid dims [${dims.join(', ')}]`);
  }
  if (data.length !== elementCount(dims)) {
    throw invalidTensor(field, `${field} has ${data.length} elements for dims [${dims.join(', ')}]`);
  }
}

/** The INVALID_ARGUMENT error for a tensor that does not fit, naming it. */
export function invalidTensor(field: string, message: string): ModelgateError {
  return new ModelgateError(ErrorCode.INVALID_ARGUMENT, message, { field });
}
