/**
 * The Open Inference Protocol datatype names modelgate handles, in the spelling the protocol
 * uses on the wire. BF16 is the one protocol type left out: no modelgate model uses it.
 */
export const TENSOR_DATATYPES = [
  'BOOL',
  'UINT8',
  'UINT16',
  'UINT32',
  'UINT64',
  'INT8',
  'INT16',
  'INT32',
  'INT64',
  'FP16',
  'FP32',
  'FP64',
  'BYTES',
] as const;

/** One Open Inference Protocol datatype name, e.g. `INT64` or `FP32`. */
export type TensorDatatype = (typeof TENSOR_DATATYPES)[number];

/** The datatypes whose elements all have the same byte size (every one but BYTES). */
export type FixedWidthDatatype = Exclude<TensorDatatype, 'BYTES'>;

/** The in-memory form of a decoded tensor, per datatype. FP16 holds raw half-float bits. */
export interface TensorArrayByDatatype {
  BOOL: Uint8Array;
  UINT8: Uint8Array;
  UINT16: Uint16Array;
  UINT32: Uint32Array;
  UINT64: BigUint64Array;
  INT8: Int8Array;
  INT16: Int16Array;
  INT32: Int32Array;
  INT64: BigInt64Array;
  FP16: Uint16Array;
  FP32: Float32Array;
  FP64: Float64Array;
  BYTES: Uint8Array[];
}

/** The decoded elements of a tensor of datatype `D`. */
export type TensorData<D extends TensorDatatype = TensorDatatype> = TensorArrayByDatatype[D];

/** What `encodeTensor` accepts for datatype `D`: BYTES elements may also be strings (UTF-8). */
export type TensorInput<D extends TensorDatatype = TensorDatatype> = D extends 'BYTES'
  ? readonly (Uint8Array | string)[]
  : TensorArrayByDatatype[D];

/** Bytes per element of each fixed-width datatype (BOOL is one byte, 0 or 1). */
export const BYTES_PER_ELEMENT = {
  BOOL: 1,
  UINT8: 1,
  UINT16: 2,
  UINT32: 4,
  UINT64: 8,
  INT8: 1,
  INT16: 2,
  INT32: 4,
  INT64: 8,
  FP16: 2,
  FP32: 4,
  FP64: 8,
} as const satisfies Record<FixedWidthDatatype, 1 | 2 | 4 | 8>;

const DATATYPE_SET: ReadonlySet<string> = new Set(TENSOR_DATATYPES);

/** True when `value` is one of the datatype names in TENSOR_DATATYPES. */
export function isTensorDatatype(value: unknown): value is TensorDatatype {
  return typeof value === 'string' && DATATYPE_SET.has(value);
}

/** True for every datatype but BYTES. */
export function isFixedWidthDatatype(datatype: TensorDatatype): datatype is FixedWidthDatatype {
  return datatype !== 'BYTES';
}
