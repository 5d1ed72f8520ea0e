import { readBytesElements, writeBytesElements } from './bytes-codec.js';
import { fixedWidthLayout, readFixedWidth, writeFixedWidth } from './fixed-width-codec.js';
import {
  type TensorData,
  type TensorDatatype,
  type TensorInput,
  isFixedWidthDatatype,
  isTensorDatatype,
} from './tensor-datatype.js';
import { formatShape, invalidTensorError } from './tensor-errors.js';
import { elementCount } from './tensor-shape.js';

function assertDatatype(datatype: unknown, tensorName?: string): asserts datatype is TensorDatatype {
  if (!isTensorDatatype(datatype)) {
    throw invalidTensorError(`unsupported datatype ${String(datatype)}`, tensorName);
  }
}

/**
 * The raw (`raw_input_contents` / `raw_output_contents`) bytes of a tensor: elements in
 * row-major order, little-endian, BYTES elements length-prefixed. Throws INVALID_ARGUMENT when
 * the element count differs from the shape's, or `data` is not the datatype's array type.
 * Fixed-width results may share memory with `data`.
 */
export function encodeTensor<D extends TensorDatatype>(
  datatype: D,
  shape: readonly number[],
  data: TensorInput<D>,
  tensorName?: string,
): Uint8Array {
  assertDatatype(datatype, tensorName);
  const count = elementCount(shape, tensorName);
  const given = (data as { length?: unknown }).length;
  if (given !== count) {
    throw invalidTensorError(
      `shape ${formatShape(shape)} has ${count} elements but ${String(given)} were given`,
      tensorName,
    );
  }
  if (isFixedWidthDatatype(datatype)) return writeFixedWidth(datatype, data, tensorName);
  if (!Array.isArray(data)) throw invalidTensorError('BYTES data must be an array', tensorName);
  return writeBytesElements(data as TensorInput<'BYTES'>, tensorName);
}

/**
 * The elements of a raw tensor. The byte length must be exactly count × element size (for BYTES,
 * the elements must use up every byte), else INVALID_ARGUMENT naming what was expected. The
 * result is a view of `bytes` when the host is little-endian and `bytes` is aligned, else a copy.
 */
export function decodeTensor<D extends TensorDatatype>(
  datatype: D,
  shape: readonly number[],
  bytes: Uint8Array,
  tensorName?: string,
): TensorData<D> {
  assertDatatype(datatype, tensorName);
  const count = elementCount(shape, tensorName);
  if (!isFixedWidthDatatype(datatype)) return readBytesElements(bytes, count, tensorName) as TensorData<D>;
  const layout = fixedWidthLayout(datatype);
  const expected = count * layout.bytesPerElement;
  if (bytes.byteLength !== expected) {
    throw invalidTensorError(
      `${datatype} tensor of shape ${formatShape(shape)} needs ${expected} bytes ` +
        `(${count} × ${layout.bytesPerElement}), got ${bytes.byteLength}`,
      tensorName,
    );
  }
  return readFixedWidth(datatype, bytes, count) as TensorData<D>;
}

/** Byte size of a fixed-width tensor's raw form, or undefined for BYTES (it depends on the data). */
export function rawByteLength(datatype: TensorDatatype, shape: readonly number[]): number | undefined {
  if (datatype === 'BYTES') return undefined;
  return elementCount(shape) * fixedWidthLayout(datatype).bytesPerElement;
}
