import { describe, expect, it } from 'vitest';
import { WARM_UP_SEQUENCE, warmUpTensors } from './warm-up-tensors.js';

describe('warmUpTensors', () => {
  it('makes batch 1 of dynamic dims 8 long: [CLS]-like ids, masks of ones, zeros elsewhere', () => {
    const tensors = warmUpTensors([
      { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] },
      { name: 'attention_mask', datatype: 'INT64', dims: [-1, -1] },
      { name: 'token_type_ids', datatype: 'INT32', dims: [-1, 4] },
    ]);
    expect(WARM_UP_SEQUENCE).toBe(8);
    expect(tensors?.input_ids).toEqual({
      datatype: 'INT64',
      dims: [1, 8],
      data: new BigInt64Array(8).fill(101n),
    });
    expect(tensors?.attention_mask?.data).toEqual(new BigInt64Array(8).fill(1n));
    expect(tensors?.token_type_ids).toEqual({ datatype: 'INT32', dims: [1, 4], data: new Int32Array(4) });
  });

  it('sizes dynamic pixel_values as the image processor does, other dynamic dims as before', () => {
    const tensors = warmUpTensors(
      [
        { name: 'pixel_values', datatype: 'FP32', dims: [-1, 3, -1, -1] },
        { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] },
      ],
      [3, 32, 48],
    );
    expect(tensors?.pixel_values?.dims).toEqual([1, 3, 32, 48]);
    expect(tensors?.pixel_values?.data).toHaveLength(3 * 32 * 48);
    expect(tensors?.input_ids?.dims).toEqual([1, 8]);
    // Without the image processor's size the image dims stay as any other dynamic dim.
    expect(
      warmUpTensors([{ name: 'pixel_values', datatype: 'FP32', dims: [-1, 3, -1, -1] }])?.pixel_values?.dims,
    ).toEqual([1, 3, 8, 8]);
  });

  it("starts a decoder's cache empty and takes a merged decoder's no-past branch", () => {
    const tensors = warmUpTensors([
      { name: 'past_key_values.0.key', datatype: 'FP32', dims: [-1, 2, -1, 4] },
      { name: 'use_cache_branch', datatype: 'BOOL', dims: [1] },
    ]);
    expect(tensors?.['past_key_values.0.key']?.dims).toEqual([1, 2, 0, 4]);
    expect(tensors?.use_cache_branch).toEqual({ datatype: 'BOOL', dims: [1], data: Uint8Array.of(0) });
  });

  it('gives up on inputs it cannot make up', () => {
    expect(warmUpTensors([{ name: 'text', datatype: 'BYTES', dims: [-1] }])).toBeUndefined();
    expect(warmUpTensors([{ name: 'x', datatype: 'FP16', dims: [-1] }])).toBeUndefined();
  });
});
