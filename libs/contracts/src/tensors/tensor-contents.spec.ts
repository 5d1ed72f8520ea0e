import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors/error-code.js';
import { isModelgateError } from '../errors/modelgate-error.js';
import { toInt64, toUint64 } from './int64-values.js';
import { contentsToTypedArray } from './tensor-contents.js';

function expectInvalid(run: () => unknown, messagePart: string): void {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(isModelgateError(thrown) && thrown.code === ErrorCode.INVALID_ARGUMENT).toBe(true);
  expect((thrown as Error).message).toContain(messagePart);
}

describe('contentsToTypedArray', () => {
  it('reads each datatype from its own typed field', () => {
    expect(contentsToTypedArray('BOOL', [3], { bool_contents: [true, false, true] })).toEqual(
      new Uint8Array([1, 0, 1]),
    );
    expect(contentsToTypedArray('INT8', [2], { int_contents: [-128, 127] })).toEqual(
      new Int8Array([-128, 127]),
    );
    expect(contentsToTypedArray('INT16', [1], { int_contents: [-300] })).toEqual(new Int16Array([-300]));
    expect(contentsToTypedArray('INT32', [2], { int_contents: [101, -7] })).toEqual(
      new Int32Array([101, -7]),
    );
    expect(contentsToTypedArray('UINT8', [1], { uint_contents: [255] })).toEqual(new Uint8Array([255]));
    expect(contentsToTypedArray('UINT16', [1], { uint_contents: [65535] })).toEqual(new Uint16Array([65535]));
    expect(contentsToTypedArray('UINT32', [1], { uint_contents: [4294967295] })).toEqual(
      new Uint32Array([4294967295]),
    );
    expect(contentsToTypedArray('FP32', [2], { fp32_contents: [0.5, -1] })).toEqual(
      new Float32Array([0.5, -1]),
    );
    expect(contentsToTypedArray('FP64', [1], { fp64_contents: [Math.PI] })).toEqual(
      new Float64Array([Math.PI]),
    );
    const bytes = [new Uint8Array([104, 105]), new Uint8Array([])];
    expect(contentsToTypedArray('BYTES', [2], { bytes_contents: bytes })).toEqual(bytes);
  });

  it('accepts INT64 and UINT64 values as numbers, decimal strings, bigints and Longs', () => {
    const int64 = contentsToTypedArray('INT64', [2, 2], {
      int64_contents: [101, '-9007199254740993', 2n ** 62n, { low: -1, high: -1, unsigned: false }],
    });
    expect(Array.from(int64)).toEqual([101n, -9007199254740993n, 2n ** 62n, -1n]);
    const uint64 = contentsToTypedArray('UINT64', [2], {
      uint64_contents: ['18446744073709551615', { low: -1, high: -1, unsigned: true }],
    });
    expect(Array.from(uint64)).toEqual([2n ** 64n - 1n, 2n ** 64n - 1n]);
  });

  it('reads camelCase field names as proto loaders without keepCase produce them', () => {
    expect(contentsToTypedArray('INT64', [2], { int64Contents: ['1', '2'] })).toEqual(
      new BigInt64Array([1n, 2n]),
    );
    expect(contentsToTypedArray('FP32', [1], { fp32_contents: [], fp32Contents: [2] })).toEqual(
      new Float32Array([2]),
    );
  });

  it('accepts missing contents for a tensor without elements', () => {
    expect(contentsToTypedArray('FP32', [0, 4], undefined)).toEqual(new Float32Array(0));
  });

  it('rejects a value count that does not match the shape, naming the field', () => {
    expectInvalid(
      () => contentsToTypedArray('INT64', [2, 3], { int64_contents: [1, 2] }),
      'needs 6 values in int64_contents, got 2',
    );
    expectInvalid(() => contentsToTypedArray('FP32', [1], null), 'needs 1 values in fp32_contents, got 0');
  });

  it('rejects integers outside the datatype range', () => {
    expectInvalid(() => contentsToTypedArray('INT8', [1], { int_contents: [128] }), 'not in [-128, 127]');
    expectInvalid(() => contentsToTypedArray('UINT16', [1], { uint_contents: [70000] }), 'not in [0, 65535]');
    expectInvalid(() => contentsToTypedArray('INT32', [1], { int_contents: [1.5] }), 'element 0 is 1.5');
    expectInvalid(
      () => contentsToTypedArray('INT64', [1], { int64_contents: ['9223372036854775808'] }),
      'INT64 range',
    );
    expectInvalid(() => contentsToTypedArray('UINT64', [1], { uint64_contents: [-1] }), 'UINT64 range');
    expectInvalid(() => contentsToTypedArray('INT64', [1], { int64_contents: ['12abc'] }), 'not an integer');
  });

  it('rejects FP16, which has no typed field', () => {
    expectInvalid(() => contentsToTypedArray('FP16', [1], {}), 'FP16 has no typed contents field');
  });
});

describe('toInt64 / toUint64', () => {
  it('read a Long by its high and low 32-bit halves', () => {
    expect(toInt64({ low: 0, high: 1 })).toBe(2n ** 32n);
    expect(toInt64({ low: 1, high: -2147483648 })).toBe(-(2n ** 63n) + 1n);
    expect(toUint64({ low: 0, high: -2147483648, unsigned: true })).toBe(2n ** 63n);
  });
});
