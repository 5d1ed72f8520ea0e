import { type FixedWidthDatatype, type TensorArrayByDatatype } from './tensor-datatype.js';
import { invalidTensorError } from './tensor-errors.js';

/** Any decoded fixed-width tensor. */
export type FixedWidthArray = TensorArrayByDatatype[FixedWidthDatatype];

type NumberArray = Exclude<FixedWidthArray, BigInt64Array | BigUint64Array>;
type BigIntArray = BigInt64Array | BigUint64Array;

interface TypedArrayConstructor<A> {
  new (length: number): A;
  new (buffer: ArrayBuffer, byteOffset: number, length: number): A;
  readonly BYTES_PER_ELEMENT: number;
  readonly name: string;
}

/** How one fixed-width datatype maps between little-endian bytes and its typed array. */
interface FixedWidthLayout {
  readonly bytesPerElement: number;
  readonly arrayName: string;
  /** Throws unless `data` is this layout's typed array class. */
  check(data: unknown, datatype: FixedWidthDatatype, tensorName?: string): FixedWidthArray;
  /** Typed array over little-endian `bytes` of `count` elements, through DataView. */
  readPortable(bytes: Uint8Array, count: number): FixedWidthArray;
  /** Little-endian bytes of `data`, through DataView. */
  writePortable(data: FixedWidthArray): Uint8Array;
  /** Typed array in host byte order over `buffer` (must be aligned). */
  view(buffer: ArrayBuffer, byteOffset: number, count: number): FixedWidthArray;
}

function checkInstance<A>(ctor: TypedArrayConstructor<A>, data: unknown, datatype: string, name?: string): A {
  if (data instanceof ctor) return data;
  const got = data instanceof Object ? data.constructor.name : typeof data;
  throw invalidTensorError(`${datatype} data must be a ${ctor.name}, got ${got}`, name);
}

function numberLayout(
  ctor: TypedArrayConstructor<NumberArray>,
  get: (view: DataView, byteOffset: number) => number,
  set: (view: DataView, byteOffset: number, value: number) => void,
): FixedWidthLayout {
  const size = ctor.BYTES_PER_ELEMENT;
  return {
    bytesPerElement: size,
    arrayName: ctor.name,
    check: (data, datatype, name) => checkInstance(ctor, data, datatype, name),
    readPortable(bytes, count) {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const out = new ctor(count);
      for (let i = 0; i < count; i++) out[i] = get(view, i * size);
      return out;
    },
    writePortable(data) {
      const values = data as NumberArray;
      const out = new Uint8Array(values.length * size);
      const view = new DataView(out.buffer);
      for (let i = 0; i < values.length; i++) set(view, i * size, values[i] ?? 0);
      return out;
    },
    view: (buffer, byteOffset, count) => new ctor(buffer, byteOffset, count),
  };
}

function bigintLayout(
  ctor: TypedArrayConstructor<BigIntArray>,
  get: (view: DataView, byteOffset: number) => bigint,
  set: (view: DataView, byteOffset: number, value: bigint) => void,
): FixedWidthLayout {
  const size = ctor.BYTES_PER_ELEMENT;
  return {
    bytesPerElement: size,
    arrayName: ctor.name,
    check: (data, datatype, name) => checkInstance(ctor, data, datatype, name),
    readPortable(bytes, count) {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const out = new ctor(count);
      for (let i = 0; i < count; i++) out[i] = get(view, i * size);
      return out;
    },
    writePortable(data) {
      const values = data as BigIntArray;
      const out = new Uint8Array(values.length * size);
      const view = new DataView(out.buffer);
      for (let i = 0; i < values.length; i++) set(view, i * size, values[i] ?? 0n);
      return out;
    },
    view: (buffer, byteOffset, count) => new ctor(buffer, byteOffset, count),
  };
}

const LAYOUTS = {
  BOOL: numberLayout(
    Uint8Array,
    (v, o) => v.getUint8(o),
    (v, o, x) => v.setUint8(o, x),
  ),
  UINT8: numberLayout(
    Uint8Array,
    (v, o) => v.getUint8(o),
    (v, o, x) => v.setUint8(o, x),
  ),
  UINT16: numberLayout(
    Uint16Array,
    (v, o) => v.getUint16(o, true),
    (v, o, x) => v.setUint16(o, x, true),
  ),
  UINT32: numberLayout(
    Uint32Array,
    (v, o) => v.getUint32(o, true),
    (v, o, x) => v.setUint32(o, x, true),
  ),
  UINT64: bigintLayout(
    BigUint64Array,
    (v, o) => v.getBigUint64(o, true),
    (v, o, x) => v.setBigUint64(o, x, true),
  ),
  INT8: numberLayout(
    Int8Array,
    (v, o) => v.getInt8(o),
    (v, o, x) => v.setInt8(o, x),
  ),
  INT16: numberLayout(
    Int16Array,
    (v, o) => v.getInt16(o, true),
    (v, o, x) => v.setInt16(o, x, true),
  ),
  INT32: numberLayout(
    Int32Array,
    (v, o) => v.getInt32(o, true),
    (v, o, x) => v.setInt32(o, x, true),
  ),
  INT64: bigintLayout(
    BigInt64Array,
    (v, o) => v.getBigInt64(o, true),
    (v, o, x) => v.setBigInt64(o, x, true),
  ),
  FP16: numberLayout(
    Uint16Array,
    (v, o) => v.getUint16(o, true),
    (v, o, x) => v.setUint16(o, x, true),
  ),
  FP32: numberLayout(
    Float32Array,
    (v, o) => v.getFloat32(o, true),
    (v, o, x) => v.setFloat32(o, x, true),
  ),
  FP64: numberLayout(
    Float64Array,
    (v, o) => v.getFloat64(o, true),
    (v, o, x) => v.setFloat64(o, x, true),
  ),
} as const satisfies Record<FixedWidthDatatype, FixedWidthLayout>;

/** True on little-endian hosts (every platform Node ships for today), where views need no swap. */
export const HOST_IS_LITTLE_ENDIAN: boolean = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The layout of a fixed-width datatype: element size and typed array class name. */
export function fixedWidthLayout(datatype: FixedWidthDatatype): FixedWidthLayout {
  return LAYOUTS[datatype];
}

/** BOOL elements as strict 0/1 bytes; copies only when some byte is neither. */
function normalizeBool(values: Uint8Array): Uint8Array {
  if (values.every((value) => value <= 1)) return values;
  return values.map((value) => (value === 0 ? 0 : 1));
}

/**
 * Little-endian bytes of `data`. On a little-endian host the result is a view of `data`'s
 * memory (no copy); `portable` forces the DataView path big-endian hosts take.
 */
export function writeFixedWidth(
  datatype: FixedWidthDatatype,
  data: unknown,
  tensorName?: string,
  portable = !HOST_IS_LITTLE_ENDIAN,
): Uint8Array {
  const layout = LAYOUTS[datatype];
  let values = layout.check(data, datatype, tensorName);
  if (datatype === 'BOOL') values = normalizeBool(values as Uint8Array);
  if (portable) return layout.writePortable(values);
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}

/**
 * The typed array over little-endian `bytes` (length already checked). Zero-copy when the host
 * is little-endian and `bytes` sits at an offset aligned to the element size; else a copy.
 */
export function readFixedWidth(
  datatype: FixedWidthDatatype,
  bytes: Uint8Array,
  count: number,
  portable = !HOST_IS_LITTLE_ENDIAN,
): FixedWidthArray {
  const layout = LAYOUTS[datatype];
  let values: FixedWidthArray;
  if (portable) {
    values = layout.readPortable(bytes, count);
  } else if (bytes.byteOffset % layout.bytesPerElement === 0 && bytes.buffer instanceof ArrayBuffer) {
    values = layout.view(bytes.buffer, bytes.byteOffset, count);
  } else {
    // Uint8Array.prototype.slice copies even for a Node Buffer, whose own slice() is a view.
    const copy = Uint8Array.prototype.slice.call(bytes, 0, count * layout.bytesPerElement);
    values = layout.view(copy.buffer, 0, count);
  }
  return datatype === 'BOOL' ? normalizeBool(values as Uint8Array) : values;
}
