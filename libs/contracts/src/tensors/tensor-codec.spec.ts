import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors/error-code.js';
import { ModelgateError } from '../errors/modelgate-error.js';
import { readFixedWidth, writeFixedWidth } from './fixed-width-codec.js';
import { float32ArrayToFp16 } from './fp16.js';
import { decodeTensor, encodeTensor, rawByteLength } from './tensor-codec.js';
import { type FixedWidthDatatype, type TensorData } from './tensor-datatype.js';
import { elementCount, normalizeShape } from './tensor-shape.js';

/** One sample tensor per fixed-width datatype, with edge values, and its expected little-endian bytes. */
const SAMPLES: { [D in FixedWidthDatatype]: { data: TensorData<D>; firstBytes: number[] } } = {
  BOOL: { data: new Uint8Array([1, 0, 1, 1, 0, 0]), firstBytes: [1, 0] },
  UINT8: { data: new Uint8Array([0, 1, 127, 128, 254, 255]), firstBytes: [0, 1] },
  INT8: { data: new Int8Array([-128, -1, 0, 1, 126, 127]), firstBytes: [0x80, 0xff] },
  UINT16: { data: new Uint16Array([0x1234, 0, 1, 65535, 256, 7]), firstBytes: [0x34, 0x12] },
  INT16: { data: new Int16Array([-2, 32767, -32768, 0, 1, -1]), firstBytes: [0xfe, 0xff] },
  UINT32: { data: new Uint32Array([0x01020304, 0, 4294967295, 1, 2, 3]), firstBytes: [4, 3, 2, 1] },
  INT32: {
    data: new Int32Array([-1, 2147483647, -2147483648, 0, 101, 102]),
    firstBytes: [0xff, 0xff, 0xff, 0xff],
  },
  UINT64: {
    data: new BigUint64Array([2n ** 64n - 1n, 0n, 2n ** 53n + 1n, 1n, 2n, 3n]),
    firstBytes: [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
  },
  INT64: {
    data: new BigInt64Array([2n ** 53n + 1n, -(2n ** 63n), 2n ** 63n - 1n, -1n, 0n, 30522n]),
    firstBytes: [1, 0, 0, 0, 0, 0, 0x20, 0],
  },
  FP16: {
    data: float32ArrayToFp16([1, -0, 65504, Infinity, 2 ** -24, -2]),
    firstBytes: [0x00, 0x3c],
  },
  FP32: {
    data: new Float32Array([1.5, -0, 3.4e38, -Infinity, 1e-45, Math.PI]),
    firstBytes: [0, 0, 0xc0, 0x3f],
  },
  FP64: {
    data: new Float64Array([-2.5, Number.MAX_VALUE, Number.MIN_VALUE, Infinity, 0, Math.E]),
    firstBytes: [0, 0, 0, 0, 0, 0, 0x04, 0xc0],
  },
};

const FIXED_WIDTH = Object.keys(SAMPLES) as FixedWidthDatatype[];

/** The same bytes at an odd offset inside a bigger buffer, so a typed-array view is impossible. */
function misaligned(bytes: Uint8Array): Uint8Array {
  const holder = new Uint8Array(bytes.byteLength + 1);
  holder.set(bytes, 1);
  return holder.subarray(1);
}

function expectInvalid(run: () => unknown, messagePart: string): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ModelgateError);
    expect((error as ModelgateError).code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect((error as ModelgateError).message).toContain(messagePart);
    return;
  }
  expect.fail('expected an INVALID_ARGUMENT ModelgateError');
}

describe('encodeTensor / decodeTensor', () => {
  it.each(FIXED_WIDTH)('round-trips %s through little-endian bytes', (datatype) => {
    const { data, firstBytes } = SAMPLES[datatype];
    const bytes = encodeTensor(datatype, [2, 3], data);
    expect(bytes.byteLength).toBe(rawByteLength(datatype, [2, 3]));
    expect(Array.from(bytes.subarray(0, firstBytes.length))).toEqual(firstBytes);
    expect(decodeTensor(datatype, [2, 3], bytes)).toEqual(data);
    expect(decodeTensor(datatype, [2, 3], misaligned(bytes))).toEqual(data);
  });

  it.each(FIXED_WIDTH)('gives the same %s bytes on the DataView path big-endian hosts take', (datatype) => {
    const { data } = SAMPLES[datatype];
    const native = writeFixedWidth(datatype, data, undefined, false);
    const portable = writeFixedWidth(datatype, data, undefined, true);
    expect(portable).toEqual(native);
    expect(readFixedWidth(datatype, misaligned(portable), data.length, true)).toEqual(data);
  });

  it('decodes without copying when the bytes are aligned, and copies when they are not', () => {
    const bytes = encodeTensor('INT64', [2], new BigInt64Array([7n, 8n]));
    const aligned = decodeTensor('INT64', [2], bytes);
    expect(aligned.buffer).toBe(bytes.buffer);
    const copied = decodeTensor('INT64', [2], misaligned(bytes));
    expect(copied.byteOffset % 8).toBe(0);
    expect(Array.from(copied)).toEqual([7n, 8n]);
  });

  it('decodes an unaligned view inside a larger Node Buffer (a gRPC message) correctly', () => {
    const ids = BigInt64Array.from([101n, 2000n, 102n]);
    const pool = Buffer.alloc(64);
    Buffer.from(encodeTensor('INT64', [1, 3], ids)).copy(pool, 13);
    expect(decodeTensor('INT64', [1, 3], pool.subarray(13, 37))).toEqual(ids);
  });

  it('keeps INT64 values beyond 2^53 exact', () => {
    const big = 2n ** 62n + 12345n;
    const decoded = decodeTensor('INT64', [1], encodeTensor('INT64', [1], new BigInt64Array([big])));
    expect(decoded[0]).toBe(big);
  });

  it('writes BOOL as 0/1 bytes even when given other non-zero bytes', () => {
    const bytes = encodeTensor('BOOL', [3], new Uint8Array([0, 2, 255]));
    expect(Array.from(bytes)).toEqual([0, 1, 1]);
    expect(Array.from(decodeTensor('BOOL', [3], new Uint8Array([9, 0, 1])))).toEqual([1, 0, 1]);
  });

  it('round-trips BYTES with empty, ASCII and multi-byte UTF-8 elements', () => {
    const strings = ['', 'hello', 'héllo wörld', '日本語', '🙂👍🏽'];
    const bytes = encodeTensor('BYTES', [5], strings);
    const firstLength = new DataView(bytes.buffer).getUint32(0, true);
    expect(firstLength).toBe(0);
    const decoded = decodeTensor('BYTES', [5], bytes);
    expect(decoded.map((element) => new TextDecoder().decode(element))).toEqual(strings);
    expect(decoded[4]?.byteLength).toBe(new TextEncoder().encode('🙂👍🏽').byteLength);
  });

  it('encodes BYTES given as raw bytes exactly as given', () => {
    const raw = [new Uint8Array([0, 255, 128]), new Uint8Array([])];
    const bytes = encodeTensor('BYTES', [1, 2], raw);
    expect(Array.from(bytes)).toEqual([3, 0, 0, 0, 0, 255, 128, 0, 0, 0, 0]);
    expect(decodeTensor('BYTES', [1, 2], bytes)).toEqual(raw);
  });

  it('treats the empty shape as a scalar and a zero dimension as no elements', () => {
    expect(decodeTensor('FP32', [], encodeTensor('FP32', [], new Float32Array([4])))).toEqual(
      new Float32Array([4]),
    );
    expect(encodeTensor('INT32', [3, 0], new Int32Array(0)).byteLength).toBe(0);
    expect(decodeTensor('BYTES', [0], new Uint8Array(0))).toEqual([]);
  });

  it('rejects a byte length that does not match the shape, naming the expected size', () => {
    expectInvalid(() => decodeTensor('INT64', [2, 3], new Uint8Array(40)), 'needs 48 bytes (6 × 8), got 40');
    expectInvalid(() => decodeTensor('FP16', [4], new Uint8Array(9)), 'needs 8 bytes');
  });

  it('rejects data whose element count does not match the shape', () => {
    expectInvalid(() => encodeTensor('FP32', [2, 2], new Float32Array(3)), 'has 4 elements but 3 were given');
    expectInvalid(() => encodeTensor('BYTES', [2], ['only one']), 'has 2 elements but 1 were given');
  });

  it('rejects data of the wrong typed array class for the datatype', () => {
    const wrong = new Float32Array(2) as unknown as Int32Array;
    expectInvalid(
      () => encodeTensor('INT32', [2], wrong),
      'INT32 data must be a Int32Array, got Float32Array',
    );
  });

  it('rejects a negative dimension', () => {
    expectInvalid(() => decodeTensor('FP32', [1, -1], new Uint8Array(4)), 'invalid dimension -1 at index 1');
    expectInvalid(() => encodeTensor('FP32', [-1], new Float32Array(1)), 'invalid dimension -1');
  });

  it('rejects a BYTES buffer cut short inside a length prefix or inside an element', () => {
    const bytes = encodeTensor('BYTES', [2], ['abc', 'defg']);
    expectInvalid(
      () => decodeTensor('BYTES', [2], bytes.subarray(0, 9)),
      'inside the length prefix of element 1',
    );
    expectInvalid(() => decodeTensor('BYTES', [2], bytes.subarray(0, 13)), 'element 1 of 2 declares 4 bytes');
  });

  it('rejects a BYTES buffer with bytes left over after the last element', () => {
    const bytes = encodeTensor('BYTES', [2], ['abc', 'defg']);
    expectInvalid(() => decodeTensor('BYTES', [1], bytes), 'holds 8 bytes after its 1 elements');
  });

  it('names the tensor in its errors when given a name', () => {
    try {
      decodeTensor('INT64', [1, 4], new Uint8Array(3), 'input_ids');
      expect.fail('expected an error');
    } catch (error) {
      expect((error as ModelgateError).message).toMatch(/^tensor 'input_ids': /);
      expect((error as ModelgateError).details.field).toBe('input_ids');
    }
  });

  it('rejects a datatype name outside the protocol', () => {
    expectInvalid(() => decodeTensor('BF16' as 'FP16', [1], new Uint8Array(2)), 'unsupported datatype BF16');
  });
});

describe('elementCount / normalizeShape', () => {
  it('multiplies the dimensions', () => {
    expect(elementCount([2, 3, 4])).toBe(24);
    expect(elementCount([])).toBe(1);
  });

  it('rejects fractional dimensions and products past the safe integer range', () => {
    expectInvalid(() => elementCount([1.5]), 'invalid dimension 1.5');
    expectInvalid(() => elementCount([2 ** 30, 2 ** 30, 2 ** 30]), 'too many elements');
  });

  it('accepts proto loader dims as numbers, strings, bigints and Longs', () => {
    expect(normalizeShape([2, '128', 3n, { low: 4, high: 0, unsigned: false }])).toEqual([2, 128, 3, 4]);
    expectInvalid(() => normalizeShape(['-1']), 'invalid dimension -1');
  });

  it('reads long decimal dims exactly, and refuses those past the safe integer range', () => {
    expect(normalizeShape(['999999999999999', '0001'])).toEqual([999_999_999_999_999, 1]);
    expect(normalizeShape(['9007199254740991'])).toEqual([Number.MAX_SAFE_INTEGER]);
    expectInvalid(() => normalizeShape(['9007199254740993']), 'invalid dimension NaN');
    expectInvalid(() => normalizeShape(['1.5']), 'is not an integer');
    expectInvalid(() => normalizeShape([-2]), 'invalid dimension -2');
  });
});
