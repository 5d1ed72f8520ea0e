import { describe, expect, it } from 'vitest';
import { hasPastInputs } from '@modelgate/contracts';
import { decoderLayoutOf } from './decoder-layout.js';

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
      useCacheBranch: false,
    });
    expect(hasPastInputs(inputs)).toBe(true);
  });

  it("records a merged decoder's use_cache_branch BOOL [1], and refuses it in another type or shape", () => {
    const branch = (datatype: string, dims: number[]) => ({ name: 'use_cache_branch', datatype, dims });
    expect(decoderLayoutOf([...inputs, branch('BOOL', [1])], outputs)).toMatchObject({
      layers: 2,
      useCacheBranch: true,
    });
    expect(decoderLayoutOf([...inputs, branch('INT64', [1])], outputs)).toBe(
      "input 'use_cache_branch' must be BOOL [1] (a merged decoder's branch choice); the graph declares INT64 [1]",
    );
    expect(decoderLayoutOf([...inputs, branch('BOOL', [1, 1])], outputs)).toMatch(/must be BOOL \[1\]/);
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
    expect(hasPastInputs(encoder)).toBe(false);
    expect(decoderLayoutOf(encoder, outputs)).toMatch(/must be exported with past/);
    expect(decoderLayoutOf(inputs, outputs.slice(0, 3))).toBe("output 'present.1.key' is missing");
    expect(
      decoderLayoutOf([...inputs.slice(0, 3), ...cache('past_key_values', 1, [-1, -1, -1, 16])], outputs),
    ).toMatch(/static heads and head size/);
    const fp16 = inputs.map((i) => (i.name.startsWith('past') ? { ...i, datatype: 'FP16' } : i));
    expect(decoderLayoutOf(fp16, outputs)).toMatch(/only FP32 caches are supported/);
  });

  describe('with an image encoder (image-to-text)', () => {
    const fp32 = (name: string, dims: number[]) => ({ name, datatype: 'FP32', dims });
    const vit = (sequence: number, hidden: number) => ({
      inputs: [fp32('pixel_values', [-1, 3, 224, 224])],
      outputs: [fp32('last_hidden_state', [-1, sequence, hidden])],
    });
    const withStates = (dims: number[]) => [...inputs, fp32('encoder_hidden_states', dims)];

    it('records the cross-attention shape from the encoder output and the decoder input', () => {
      expect(decoderLayoutOf(withStates([-1, -1, 64]), outputs, vit(197, 64))).toMatchObject({
        layers: 2,
        crossAttention: { sequence: 197, hidden: 64 },
      });
      expect(decoderLayoutOf(withStates([-1, -1, 64]), outputs, vit(-1, -1))).toMatchObject({
        crossAttention: { sequence: -1, hidden: 64 },
      });
    });

    it('refuses a decoder and an encoder that do not fit together, and cross-attention without its encoder', () => {
      expect(decoderLayoutOf(withStates([-1, -1, 32]), outputs, vit(197, 64))).toBe(
        "the image encoder's 'last_hidden_state' has hidden size 64 but the decoder's 'encoder_hidden_states' takes 32",
      );
      expect(decoderLayoutOf(withStates([-1, 50, 64]), outputs, vit(197, 64))).toMatch(
        /has sequence 197 but/,
      );
      expect(decoderLayoutOf(inputs, outputs, vit(197, 64))).toMatch(
        /an image-to-text model's decoder must take 'encoder_hidden_states'/,
      );
      expect(decoderLayoutOf(withStates([-1, -1, 64]), outputs)).toMatch(
        /takes 'encoder_hidden_states' .*serve it as an image-to-text model with its encoder/,
      );
      const noPixels = { ...vit(197, 64), inputs: [int64('input_ids')] };
      expect(decoderLayoutOf(withStates([-1, -1, 64]), outputs, noPixels)).toMatch(
        /the image encoder must take 'pixel_values' FP32/,
      );
    });
  });
});
