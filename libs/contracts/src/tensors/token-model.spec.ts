import { describe, expect, it } from 'vitest';
import { isTokenModel } from './token-model.js';

describe('isTokenModel', () => {
  const ids = { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] };
  const mask = { name: 'attention_mask', datatype: 'INT64', dims: [-1, -1] };

  it('is a model whose inputs are all INT64 [batch, sequence], one an attention_mask', () => {
    expect(isTokenModel([ids, mask])).toBe(true);
    expect(isTokenModel([ids, mask, { name: 'token_type_ids', datatype: 'INT64', dims: [-1, -1] }])).toBe(
      true,
    );
  });

  it('is not one without a mask, with another datatype or rank, or with no inputs', () => {
    expect(isTokenModel([ids])).toBe(false);
    expect(isTokenModel([ids, { ...mask, datatype: 'INT32' }])).toBe(false);
    expect(isTokenModel([ids, mask, { name: 'pixel_values', datatype: 'FP32', dims: [-1, 3, 8, 8] }])).toBe(
      false,
    );
    expect(isTokenModel([])).toBe(false);
  });
});
