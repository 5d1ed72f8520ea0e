import { describe, expect, it } from 'vitest';
import {
  effectiveMaxBatchSize,
  encoderBatchingProblems,
  fixedBatchSize,
  resolvedMaxBatchSize,
} from './encoder-batching.js';
import { type TensorMetadata } from './tensor-metadata.schema.js';

const tokens: TensorMetadata[] = [
  { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] },
  { name: 'attention_mask', datatype: 'INT64', dims: [-1, -1] },
];
const pixels: TensorMetadata[] = [{ name: 'pixel_values', datatype: 'FP32', dims: [-1, 3, 8, 8] }];
const idsOnly: TensorMetadata[] = [{ name: 'input_ids', datatype: 'INT64', dims: [-1, -1] }];
const batchOfOne: TensorMetadata[] = [{ name: 'x', datatype: 'FP32', dims: [1, 4] }];
const defaults = { preferredBatchSizes: [], maxPaddingRatio: 1.15, maxBatchTokens: 16_384 };

describe('encoderBatchingProblems', () => {
  it('takes the defaults on any graph, and any padding settings on a token model', () => {
    for (const inputs of [tokens, pixels, idsOnly, batchOfOne])
      expect(encoderBatchingProblems(defaults, inputs)).toEqual([]);
    expect(
      encoderBatchingProblems({ ...defaults, maxPaddingRatio: 2, maxBatchTokens: 4096 }, tokens),
    ).toEqual([]);
  });

  it('refuses padding settings where rows are never padded (no attention_mask, or not all INT64 2-D)', () => {
    expect(encoderBatchingProblems({ ...defaults, maxPaddingRatio: 2 }, pixels)).toEqual([
      'batching.maxPaddingRatio has no meaning for this model: only a model whose inputs are all INT64 ' +
        '[batch, sequence] with an attention_mask is padded (rows of this one, pixel_values (FP32 [-1, 3, 8, 8]), ' +
        'batch only with rows of the same shape); leave it out',
    ]);
    expect(encoderBatchingProblems({ ...defaults, maxPaddingRatio: 1 }, idsOnly)[0]).toMatch(
      /^batching\.maxPaddingRatio has no meaning/,
    );
    expect(encoderBatchingProblems({ ...defaults, maxBatchTokens: 2 }, pixels)[0]).toMatch(
      /^batching\.maxBatchTokens \(padded tokens per run\) has no meaning for this model/,
    );
  });

  it('refuses a batch size the graph cannot take, even the default value given, and lets none given mean as large as it takes', () => {
    expect(fixedBatchSize(batchOfOne)).toBe(1);
    expect(fixedBatchSize(tokens)).toBeUndefined();
    expect(encoderBatchingProblems({ ...defaults, maxBatchSize: 8 }, batchOfOne)).toEqual([
      'batching.maxBatchSize 8 cannot apply: the graph takes batches of at most 1 (x (FP32 [1, 4])); set it to 1 or less, or leave it out',
    ]);
    expect(encoderBatchingProblems({ ...defaults, maxBatchSize: 1 }, batchOfOne)).toEqual([]);
    expect(encoderBatchingProblems({ ...defaults, maxBatchSize: 32 }, batchOfOne)).toEqual([
      'batching.maxBatchSize 32 cannot apply: the graph takes batches of at most 1 (x (FP32 [1, 4])); set it to 1 or less, or leave it out',
    ]);
    expect(encoderBatchingProblems({ ...defaults, preferredBatchSizes: [4] }, batchOfOne)).toEqual([
      'batching.preferredBatchSizes 4 cannot apply: the graph takes batches of at most 1',
    ]);
    expect(effectiveMaxBatchSize(undefined, batchOfOne)).toBe(1);
    expect(effectiveMaxBatchSize(undefined, tokens)).toBe(32);
    expect(effectiveMaxBatchSize(8, tokens)).toBe(8);
    const model = (task: 'text-classification' | 'text-generation', maxBatchSize?: number) => ({
      task,
      batching: { maxBatchSize },
      inputs: tokens,
    });
    expect(resolvedMaxBatchSize(model('text-classification'))).toBe(32);
    expect(resolvedMaxBatchSize(model('text-generation'))).toBe(1); // no position_ids
    expect(resolvedMaxBatchSize(model('text-generation', 1))).toBe(1);
    expect(resolvedMaxBatchSize({ ...model('text-classification'), inputs: batchOfOne })).toBe(1);
  });
});
