import { describe, expect, it } from 'vitest';
import { readModelConfig } from './model-config.js';

describe('readModelConfig', () => {
  it('orders id2label by class index, naming gaps LABEL_<i> as transformers does', () => {
    const facts = readModelConfig({ id2label: { 2: 'science', 0: 'sports', 3: 'business' } });
    expect(facts.labels).toEqual(['sports', 'LABEL_1', 'science', 'business']);
  });

  it('marks multi_label_classification models as multi-label', () => {
    expect(readModelConfig({ problem_type: 'multi_label_classification' })).toEqual({
      problemType: 'multi_label_classification',
      multiLabel: true,
    });
    expect(readModelConfig({ problem_type: 'single_label_classification' }).multiLabel).toBe(false);
  });

  it('reads max_position_embeddings and ignores what it does not understand', () => {
    expect(readModelConfig({ max_position_embeddings: 512 }).maxPositionEmbeddings).toBe(512);
    expect(readModelConfig({ max_position_embeddings: -1, id2label: [], problem_type: 3 })).toEqual({
      multiLabel: false,
    });
    expect(readModelConfig(null)).toEqual({ multiLabel: false });
  });

  it('reads GPT-2 n_positions as the position limit', () => {
    expect(readModelConfig({ n_positions: 256 }).maxPositionEmbeddings).toBe(256);
  });

  it('takes eos_token_id from generation_config.json before config.json, as an int or a list', () => {
    expect(readModelConfig({ eos_token_id: 2 }).eosTokenIds).toEqual([2]);
    expect(readModelConfig({ eos_token_id: 2 }, { eos_token_id: [7, 8] }).eosTokenIds).toEqual([7, 8]);
    expect(readModelConfig({ eos_token_id: 2 }, { bos_token_id: 1 }).eosTokenIds).toEqual([2]);
    expect(readModelConfig({ eos_token_id: 'x' }).eosTokenIds).toBeUndefined();
  });
});
