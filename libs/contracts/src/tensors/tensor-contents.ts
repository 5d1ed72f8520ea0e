import { type Int64Like, toInt64, toUint64 } from './int64-values.js';
import { type TensorData, type TensorDatatype, isTensorDatatype } from './tensor-datatype.js';
import { formatShape, invalidTensorError } from './tensor-errors.js';
import { elementCount } from './tensor-shape.js';

/**
 * An `InferTensorContents` message as a proto loader hands it over. Both spellings of the field
 * names are read (snake_case with `keepCase`, camelCase without), and 64-bit fields may be
 * numbers, strings, bigints or Longs depending on the loader's `longs` option.
 */
export interface InferTensorContentsLike {
  bool_contents?: readonly boolean[] | null;
  int_contents?: readonly number[] | null;
  int64_contents?: readonly Int64Like[] | null;
  uint_contents?: readonly number[] | null;
  uint64_contents?: readonly Int64Like[] | null;
  fp32_contents?: readonly number[] | null;
  fp64_contents?: readonly number[] | null;
  bytes_contents?: readonly Uint8Array[] | null;
  boolContents?: readonly boolean[] | null;
  intContents?: readonly number[] | null;
  int64Contents?: readonly Int64Like[] | null;
  uintContents?: readonly number[] | null;
  uint64Contents?: readonly Int64Like[] | null;
  fp32Contents?: readonly number[] | null;
  fp64Contents?: readonly number[] | null;
  bytesContents?: readonly Uint8Array[] | null;
}

type ContentsField = 'bool' | 'int' | 'int64' | 'uint' | 'uint64' | 'fp32' | 'fp64' | 'bytes';

/** Which typed field carries each datatype (FP16 has none: it travels only as raw bytes). */
const CONTENTS_FIELD = {
  BOOL: 'bool',
  UINT8: 'uint',
  UINT16: 'uint',
  UINT32: 'uint',
  UINT64: 'uint64',
  INT8: 'int',
  INT16: 'int',
  INT32: 'int',
  INT64: 'int64',
  FP16: undefined,
  FP32: 'fp32',
  FP64: 'fp64',
  BYTES: 'bytes',
} as const satisfies Record<TensorDatatype, ContentsField | undefined>;

/** Inclusive ranges of the integer types that share `int_contents` / `uint_contents`. */
const INTEGER_RANGE = {
  INT8: [-128, 127],
  INT16: [-32768, 32767],
  INT32: [-2147483648, 2147483647],
  UINT8: [0, 255],
  UINT16: [0, 65535],
  UINT32: [0, 4294967295],
} as const;

function readField(contents: InferTensorContentsLike, field: ContentsField): readonly unknown[] {
  const snake = contents[`${field}_contents`];
  const camel = contents[`${field}Contents`];
  if (snake !== undefined && snake !== null && snake.length > 0) return snake;
  return camel ?? [];
}

function toIntegers(
  datatype: keyof typeof INTEGER_RANGE,
  values: readonly unknown[],
  tensorName?: string,
): number[] {
  const [min, max] = INTEGER_RANGE[datatype];
  return values.map((value, index) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw invalidTensorError(
        `${datatype} element ${index} is ${String(value)}, not in [${min}, ${max}]`,
        tensorName,
      );
    }
    return value;
  });
}

function toFloats(datatype: string, values: readonly unknown[], tensorName?: string): number[] {
  return values.map((value, index) => {
    if (typeof value !== 'number') {
      throw invalidTensorError(`${datatype} element ${index} is not a number`, tensorName);
    }
    return value;
  });
}

function convert(datatype: TensorDatatype, values: readonly unknown[], tensorName?: string): TensorData {
  switch (datatype) {
    case 'BOOL':
      return Uint8Array.from(values, (value, index) => {
        if (typeof value !== 'boolean') {
          throw invalidTensorError(`BOOL element ${index} is not a boolean`, tensorName);
        }
        return value ? 1 : 0;
      });
    case 'INT8':
      return Int8Array.from(toIntegers(datatype, values, tensorName));
    case 'INT16':
      return Int16Array.from(toIntegers(datatype, values, tensorName));
    case 'INT32':
      return Int32Array.from(toIntegers(datatype, values, tensorName));
    case 'UINT8':
      return Uint8Array.from(toIntegers(datatype, values, tensorName));
    case 'UINT16':
      return Uint16Array.from(toIntegers(datatype, values, tensorName));
    case 'UINT32':
      return Uint32Array.from(toIntegers(datatype, values, tensorName));
    case 'INT64':
      return BigInt64Array.from(values as readonly Int64Like[], (value) => toInt64(value, tensorName));
    case 'UINT64':
      return BigUint64Array.from(values as readonly Int64Like[], (value) => toUint64(value, tensorName));
    case 'FP32':
      return Float32Array.from(toFloats(datatype, values, tensorName));
    case 'FP64':
      return Float64Array.from(toFloats(datatype, values, tensorName));
    case 'BYTES':
      return values.map((value, index) => {
        if (!(value instanceof Uint8Array)) {
          throw invalidTensorError(`BYTES element ${index} is not bytes`, tensorName);
        }
        return value;
      });
    case 'FP16':
      throw invalidTensorError('FP16 has no typed contents field; send it in raw contents', tensorName);
  }
}

/**
 * The typed array a tensor's typed `contents` stand for: reads the field matching the datatype
 * (int_contents for INT8/16/32, int64_contents for INT64, ...), checks every value fits the
 * datatype and that there are exactly as many values as the shape has elements.
 */
export function contentsToTypedArray<D extends TensorDatatype>(
  datatype: D,
  shape: readonly number[],
  contents: InferTensorContentsLike | null | undefined,
  tensorName?: string,
): TensorData<D> {
  if (!isTensorDatatype(datatype)) {
    throw invalidTensorError(`unsupported datatype ${String(datatype)}`, tensorName);
  }
  const count = elementCount(shape, tensorName);
  const field = CONTENTS_FIELD[datatype];
  if (field === undefined) return convert(datatype, [], tensorName) as TensorData<D>;
  const values = contents === null || contents === undefined ? [] : readField(contents, field);
  if (values.length !== count) {
    throw invalidTensorError(
      `${datatype} tensor of shape ${formatShape(shape)} needs ${count} values in ${field}_contents, ` +
        `got ${values.length}`,
      tensorName,
    );
  }
  return convert(datatype, values, tensorName) as TensorData<D>;
}
