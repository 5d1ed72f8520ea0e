import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { batchSignature, concatBatch } from './concat-batch.js';
import { splitBatchOutput } from './split-batch-output.js';

describe('concatBatch', () => {
  it('stacks requests along dim 0 and splits the output back per request', () => {
    const a = { pixels: { data: Float32Array.from([1, 2, 3]), dims: [1, 3] } };
    const b = { pixels: { data: Float32Array.from([4, 5, 6, 7, 8, 9]), dims: [2, 3] } };
    const batch = concatBatch([a, b]);
    expect(batch.inputs.pixels).toEqual({
      data: Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9]),
      dims: [3, 3],
    });
    expect(batch.layout).toEqual({
      batch: 3,
      requests: [
        { firstRow: 0, rows: 1 },
        { firstRow: 1, rows: 2 },
      ],
    });
    const doubled = (batch.inputs.pixels?.data ?? new Float32Array()).map((x) => x * 2);
    const [outA, outB] = splitBatchOutput(doubled, [3, 3], batch.layout);
    expect(outA).toEqual({ data: Float32Array.from([2, 4, 6]), dims: [1, 3] });
    expect(outB).toEqual({ data: Float32Array.from([8, 10, 12, 14, 16, 18]), dims: [2, 3] });
  });

  it('gives stackable requests equal signatures and others different ones', () => {
    const sig = (dims: number[], data: Float32Array | Int32Array = new Float32Array(6)) =>
      batchSignature({ x: { data, dims } });
    expect(sig([1, 6])).toBe(sig([3, 6], new Float32Array(18)));
    expect(sig([2, 3])).not.toBe(sig([3, 2]));
    expect(sig([1, 6])).not.toBe(sig([1, 6], new Int32Array(6)));
  });

  it('refuses requests whose non-batch dims differ', () => {
    const a = { x: { data: new Float32Array(4), dims: [1, 4] } };
    const b = { x: { data: new Float32Array(5), dims: [1, 5] } };
    expect(() => concatBatch([a, b])).toThrow(expect.objectContaining({ code: ErrorCode.INVALID_ARGUMENT }));
  });
});
