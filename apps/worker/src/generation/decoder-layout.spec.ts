import { describe, expect, it } from 'vitest';
import { decoderLayoutOf, isDecoderWithPast } from './decoder-layout.js';

const int64 = (name: string) => ({ name, datatype: 'INT64', dims: [-1, -1] });
const cache = (prefix: string, layers: number, dims = [-1, 4, -1, 16]) =>
  Array.from({ length: layers }, (_, layer) =>
    ['key', 'value'].map((part) => ({ name: `${prefix}.${layer}.${part}`, datatype: 'FP32', dims })),
  ).flat();
const inputs = [
  int64('input_ids'),
  int64('attention_mask'),
  int64('position_ids'),
  ...cache('past_key_values', 2),
];
const outputs = [{ name: 'logits', datatype: 'FP32', dims: [-1, -1, 50257] }, ...cache('present', 2)];

describe('decoderLayoutOf', () => {
  it('reads layers, heads and head size from the past_key_values inputs', () => {
    expect(decoderLayoutOf(inputs, outputs)).toEqual({
      layers: 2,
      heads: 4,
      headSize: 16,
      hasPositionIds: true,
    });
    expect(isDecoderWithPast(inputs)).toBe(true);
  });

  it('knows a decoder without position_ids', () => {
    expect(
      decoderLayoutOf(
        inputs.filter((i) => i.name !== 'position_ids'),
        outputs,
      ),
    ).toMatchObject({
      hasPositionIds: false,
    });
  });

  it('says why a graph is not a decoder with past it can run', () => {
    const encoder = [int64('input_ids'), int64('attention_mask')];
    expect(isDecoderWithPast(encoder)).toBe(false);
    expect(decoderLayoutOf(encoder, outputs)).toMatch(/must be exported with past/);
    expect(decoderLayoutOf(inputs, outputs.slice(0, 3))).toBe("output 'present.1.key' is missing");
    expect(
      decoderLayoutOf([...inputs.slice(0, 3), ...cache('past_key_values', 1, [-1, -1, -1, 16])], outputs),
    ).toMatch(/static heads and head size/);
    const fp16 = inputs.map((i) => (i.name.startsWith('past') ? { ...i, datatype: 'FP16' } : i));
    expect(decoderLayoutOf(fp16, outputs)).toMatch(/only FP32 caches are supported/);
  });
});
