import { describe, expect, it } from 'vitest';
import { decoderBatchSizeProblem, decoderMaxBatchSize } from './decoder-batching.js';
import { DEFAULT_MAX_BATCH_SIZE } from './model-spec.schema.js';

const withPositions = [{ name: 'input_ids' }, { name: 'attention_mask' }, { name: 'position_ids' }];
const withoutPositions = [{ name: 'input_ids' }, { name: 'attention_mask' }];

describe('decoderBatchSizeProblem', () => {
  it('accepts any maxBatchSize on a decoder that takes position_ids', () => {
    for (const size of [1, 4, DEFAULT_MAX_BATCH_SIZE, 64])
      expect(decoderBatchSizeProblem(size, withPositions)).toBeUndefined();
  });

  it('accepts 1, or none given, on a decoder without position_ids, which then decodes one sequence at a time', () => {
    expect(decoderBatchSizeProblem(1, withoutPositions)).toBeUndefined();
    expect(decoderBatchSizeProblem(undefined, withoutPositions)).toBeUndefined();
    expect(decoderMaxBatchSize(undefined, withoutPositions)).toBe(1);
    expect(decoderMaxBatchSize(undefined, withPositions)).toBe(DEFAULT_MAX_BATCH_SIZE);
    expect(decoderMaxBatchSize(4, withPositions)).toBe(4);
  });

  it('refuses the default value given explicitly there: given means given, not "as many as it takes"', () => {
    expect(decoderBatchSizeProblem(DEFAULT_MAX_BATCH_SIZE, withoutPositions)).toContain(
      `maxBatchSize ${DEFAULT_MAX_BATCH_SIZE} cannot apply`,
    );
  });

  it('refuses any other size there, saying what to do', () => {
    expect(decoderBatchSizeProblem(4, withoutPositions)).toBe(
      'batching.maxBatchSize 4 cannot apply: the decoder takes no position_ids, so it numbers positions ' +
        'from its padded cache and decodes one sequence at a time; leave maxBatchSize out or set it to 1 ' +
        '(an export with position_ids, as optimum-cli writes for GPT-2 or Llama, decodes sequences together)',
    );
    expect(decoderBatchSizeProblem(64, withoutPositions)).toContain('maxBatchSize 64 cannot apply');
  });
});
