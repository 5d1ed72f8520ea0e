import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { packTokenBatch } from './pack-token-batch.js';

const big = (values: number[]): BigInt64Array => BigInt64Array.from(values.map((v) => BigInt(v)));

describe('packTokenBatch', () => {
  it('right-pads every named input to the longest request, as int64 [batch, seq]', () => {
    const packed = packTokenBatch(
      [
        { input_ids: Int32Array.from([101, 7, 102]), attention_mask: [1, 1, 1] },
        { input_ids: big([101, 8, 9, 10, 102]), attention_mask: big([1, 1, 1, 1, 1]) },
      ],
      { padValues: { input_ids: 1 } },
    );
    expect(packed.dims).toEqual([2, 5]);
    expect(packed.batch).toBe(2);
    expect(packed.sequenceLength).toBe(5);
    expect(packed.inputs.input_ids).toEqual(big([101, 7, 102, 1, 1, 101, 8, 9, 10, 102]));
    expect(packed.inputs.attention_mask).toEqual(big([1, 1, 1, 0, 0, 1, 1, 1, 1, 1]));
    expect(packed.layout).toEqual({
      batch: 2,
      sequenceLength: 5,
      requests: [
        { firstRow: 0, rows: 1, sequenceLength: 3 },
        { firstRow: 1, rows: 1, sequenceLength: 5 },
      ],
    });
  });

  it('stacks requests of several rows ([rows, seq] tensors) row by row', () => {
    const packed = packTokenBatch([
      { input_ids: { data: [1, 2, 3, 4], dims: [2, 2] } },
      { input_ids: { data: [5, 6, 7], dims: [1, 3] } },
    ]);
    expect(packed.dims).toEqual([3, 3]);
    expect(packed.inputs.input_ids).toEqual(big([1, 2, 0, 3, 4, 0, 5, 6, 7]));
    expect(packed.layout.requests).toEqual([
      { firstRow: 0, rows: 2, sequenceLength: 2 },
      { firstRow: 2, rows: 1, sequenceLength: 3 },
    ]);
  });

  it('refuses requests whose input names differ', () => {
    expect(() => packTokenBatch([{ input_ids: [1] }, { input_ids: [1], token_type_ids: [0] }])).toThrow(
      expect.objectContaining({ code: ErrorCode.INVALID_ARGUMENT }),
    );
  });

  it('refuses a request whose inputs disagree in length, naming the input', () => {
    expect(() => packTokenBatch([{ input_ids: [1, 2, 3], attention_mask: [1, 1] }])).toThrow(
      expect.objectContaining({ code: ErrorCode.INVALID_ARGUMENT, details: { field: 'input_ids' } }),
    );
  });

  it('refuses non-integer ids, data that does not fill its dims, and an empty batch', () => {
    expect(() => packTokenBatch([{ input_ids: [1.5] }])).toThrow(/not an integer/);
    expect(() => packTokenBatch([{ input_ids: { data: [1, 2, 3], dims: [2, 2] } }])).toThrow(/3 elements/);
    expect(() => packTokenBatch([])).toThrow(/empty batch/);
  });
});
