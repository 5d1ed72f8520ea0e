// fast-check arbitraries for the input tensors of an Open Inference Protocol request
// (ModelInferRequest.InferInputTensor plus its raw_input_contents entry): built from what a model
// or endpoint declares (its ModelMetadata), so most reach past the first check, then often bent:
// the wrong datatype, a shape whose product is not the element count, negative, huge or too many
// dims, raw bytes of the wrong length, BYTES with truncated or lying length prefixes, text that is
// not UTF-8, typed contents in the wrong field, per-input parameters.
import { TENSOR_DATATYPES } from '@modelgate/contracts';
import { rawBytes } from '@modelgate/testing';
import fc from 'fast-check';
import { imageBytes } from './hostile-images.js';
import { hostileString } from './hostile-inputs.js';
import { tokenIds } from './route-values.js';

/** A tensor as ModelMetadata describes it (-1: any size). */
export interface TensorMeta {
  name: string;
  datatype: string;
  shape: number[];
}

/** One InferInputTensor as protobufjs encodes it (int64 dims as numbers or decimal strings). */
export interface InputTensor {
  name: string;
  datatype: string;
  shape: (number | string)[];
  parameters?: Record<string, object>;
  contents?: Record<string, unknown[]>;
}

/** An input and its raw_input_contents entry, when it has one. */
export interface HostileInput {
  tensor: InputTensor;
  raw?: Uint8Array;
}

/** InferTensorContents' field for each datatype (FP16 has none). */
const CONTENTS_FIELD: Record<string, string> = {
  BOOL: 'bool_contents',
  INT8: 'int_contents',
  INT16: 'int_contents',
  INT32: 'int_contents',
  INT64: 'int64_contents',
  UINT8: 'uint_contents',
  UINT16: 'uint_contents',
  UINT32: 'uint_contents',
  UINT64: 'uint64_contents',
  FP32: 'fp32_contents',
  FP64: 'fp64_contents',
  BYTES: 'bytes_contents',
};

/** Byte size and little-endian writer of each fixed-width datatype. */
const FIXED: Record<string, [number, (view: DataView, at: number, value: number) => void]> = {
  BOOL: [1, (v, at, x) => v.setUint8(at, x === 0 ? 0 : 1)],
  INT8: [1, (v, at, x) => v.setInt8(at, x)],
  UINT8: [1, (v, at, x) => v.setUint8(at, x)],
  INT16: [2, (v, at, x) => v.setInt16(at, x, true)],
  UINT16: [2, (v, at, x) => v.setUint16(at, x, true)],
  FP16: [2, (v, at, x) => v.setUint16(at, x, true)],
  INT32: [4, (v, at, x) => v.setInt32(at, x, true)],
  UINT32: [4, (v, at, x) => v.setUint32(at, x, true)],
  FP32: [4, (v, at, x) => v.setFloat32(at, x, true)],
  INT64: [8, (v, at, x) => v.setBigInt64(at, BigInt(typedValue('int64', x)), true)],
  UINT64: [8, (v, at, x) => v.setBigUint64(at, BigInt.asUintN(64, BigInt(typedValue('uint64', x))), true)],
  FP64: [8, (v, at, x) => v.setFloat64(at, x, true)],
};

/** `values` in the raw form of `datatype` (any name it does not know: one byte each). */
function rawFixed(datatype: string, values: readonly number[]): Uint8Array {
  const [size, write] = FIXED[datatype] ?? [
    1,
    (v: DataView, at: number, x: number) => v.setUint8(at, x & 0xff),
  ];
  const out = new Uint8Array(values.length * size);
  const view = new DataView(out.buffer);
  values.forEach((value, index) => write(view, index * size, value));
  return out;
}

/** Byte sequences that are not UTF-8 (a stray continuation, overlong, a surrogate), and NUL. */
const NOT_TEXT = [[0xff], [0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x00], [0x61, 0x00, 0x62]];

/** One BYTES element: text (NUL, lone surrogates… included), else bytes that are not UTF-8. */
const bytesElement: fc.Arbitrary<Uint8Array> = fc.oneof(
  { arbitrary: hostileString.map((text) => new Uint8Array(Buffer.from(text))), weight: 8 },
  { arbitrary: fc.constantFrom(...NOT_TEXT).map((bytes) => Uint8Array.from(bytes)), weight: 1 },
  { arbitrary: fc.uint8Array({ maxLength: 64 }), weight: 1 },
);

/** Numbers for a fixed-width tensor: token-id-like integers mostly, else any double. */
const numbers = (count: number): fc.Arbitrary<number[]> =>
  fc.oneof(
    {
      arbitrary: tokenIds.map((ids) =>
        Array.from({ length: count }, (_, i) => ids[i % Math.max(ids.length, 1)] ?? 1),
      ),
      weight: 4,
    },
    { arbitrary: fc.array(fc.double(), { minLength: count, maxLength: count }), weight: 1 },
  );

/** `value` as protobufjs writes it into `field`: a 64-bit field takes a safe integer. */
function typedValue(field: string, value: number): number {
  if (!field.includes('64')) return value;
  const integer = Math.trunc(value);
  return Number.isSafeInteger(integer) ? integer : 0;
}

/** A datatype name, as sent: a real one, a near miss, or anything. */
const datatypeName: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...TENSOR_DATATYPES), weight: 4 },
  { arbitrary: fc.constantFrom('BF16', 'bytes', 'fp32', '', 'FP128', 'STRING', 'INT64 '), weight: 2 },
  { arbitrary: hostileString, weight: 1 },
);

/** Dims a client may claim: negative, past 2^31, 2^53 or int64, as numbers or decimal strings. */
const hostileDim: fc.Arbitrary<number | string> = fc.oneof(
  fc.integer({ min: -(2 ** 31), max: -1 }),
  fc.constantFrom(
    2 ** 31,
    2 ** 32 + 1,
    2 ** 53 - 1,
    '9007199254740993',
    '9223372036854775807',
    '-9223372036854775808',
  ),
);

/** How an input is bent, if at all. */
const BENDS = [
  'datatype',
  'count',
  'negative-or-huge',
  'rank',
  'scalar',
  'raw-length',
  'prefix',
  'typed',
  'wrong-field',
  'both',
  'parameters',
  'name',
] as const;
const bend = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: BENDS.length },
  { arbitrary: fc.constantFrom(...BENDS), weight: BENDS.length },
);

/** Elements of an input declared as `meta`, for `count` elements. */
function elementsOf(
  meta: TensorMeta,
  count: number,
  images: Buffer[],
): fc.Arbitrary<Uint8Array | number[] | Uint8Array[]> {
  if (meta.datatype !== 'BYTES') return numbers(count);
  if (meta.name === 'image')
    return fc.array(
      imageBytes(images).map((b) => new Uint8Array(b)),
      { minLength: count, maxLength: count },
    );
  return fc.array(bytesElement, { minLength: count, maxLength: count });
}

/**
 * An input for `meta` (a name it declares), mostly well formed: `-1` dims become 1 to 3; then,
 * about half the time, bent one way.
 */
export function hostileInput(meta: TensorMeta, images: Buffer[]): fc.Arbitrary<HostileInput> {
  const shape = fc.tuple(
    ...meta.shape.map((dim) => (dim >= 0 ? fc.constant(dim) : fc.integer({ min: 1, max: 3 }))),
  );
  return shape.chain((dims) => {
    const count = dims.reduce((a, b) => a * b, 1);
    return fc
      .record({
        elements: elementsOf(meta, count, images),
        bend,
        datatype: datatypeName,
        dim: hostileDim,
        cut: fc.integer({ min: -9, max: 9 }).filter((n) => n !== 0),
        rank: fc.integer({ min: 3, max: 300 }),
        name: hostileString,
      })
      .map(({ elements, bend, datatype, dim, cut, rank, name }) => {
        const bytes = meta.datatype === 'BYTES';
        const values = elements as (Uint8Array | number)[];
        const raw = bytes ? rawBytes(values as Uint8Array[]) : rawFixed(meta.datatype, values as number[]);
        const tensor: InputTensor = { name: meta.name, datatype: meta.datatype, shape: [...dims] };
        const field = CONTENTS_FIELD[meta.datatype] ?? 'bytes_contents';
        const input: HostileInput = { tensor, raw };
        switch (bend) {
          case undefined:
            break;
          case 'datatype':
            tensor.datatype = datatype;
            break;
          case 'count':
            tensor.shape = [Math.max(0, (dims[0] ?? 1) + cut), ...dims.slice(1)];
            break;
          case 'negative-or-huge':
            tensor.shape = [dim, ...dims.slice(1)];
            break;
          case 'rank':
            tensor.shape = [...dims, ...Array<number>(rank).fill(1)];
            break;
          case 'scalar':
            tensor.shape = [];
            break;
          case 'raw-length':
            input.raw =
              cut < 0
                ? raw.subarray(0, Math.max(0, raw.length + cut))
                : Buffer.concat([raw, new Uint8Array(cut)]);
            break;
          case 'prefix': {
            // A length prefix cut short, or one claiming more bytes than follow.
            const lying = Buffer.from(raw);
            if (lying.length >= 4 && cut > 0) lying.writeUInt32LE(cut > 5 ? 0xffffffff : 0x7fffffff, 0);
            input.raw = cut > 0 ? lying : lying.subarray(0, Math.max(0, Math.min(lying.length, 4) + cut));
            break;
          }
          case 'typed':
            delete input.raw;
            tensor.contents = { [field]: bytes ? values : values.map((v) => typedValue(field, v as number)) };
            break;
          case 'wrong-field':
            delete input.raw;
            tensor.contents = bytes
              ? { fp32_contents: values.map((_, i) => i) }
              : { bytes_contents: values.map(() => Buffer.from('1')) };
            break;
          case 'both':
            tensor.contents = { [field]: bytes ? values : values.map(() => 0) };
            break;
          case 'parameters':
            tensor.parameters = { content_type: { string_param: 'str' }, [name]: { bool_param: true } };
            break;
          case 'name':
            tensor.name = name;
            break;
        }
        return input;
      });
  });
}
