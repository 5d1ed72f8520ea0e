import { describe, expect, it } from 'vitest';
import { givesPooledEmbedding, hasPastInputs } from './export-names.js';

describe('givesPooledEmbedding', () => {
  const hidden = { name: 'last_hidden_state', dims: [-1, -1, 384] };
  const pooled = { name: 'pooler_output', dims: [-1, 384] };

  it('reads last_hidden_state when there is one, else the first output', () => {
    expect(givesPooledEmbedding([hidden])).toBe(false);
    expect(givesPooledEmbedding([pooled, hidden])).toBe(false);
    expect(givesPooledEmbedding([pooled])).toBe(true);
    expect(givesPooledEmbedding([{ name: 'last_hidden_state', dims: [-1, 384] }])).toBe(true);
  });

  it('is false for a model that declares no outputs', () => {
    expect(givesPooledEmbedding([])).toBe(false);
  });
});

describe('hasPastInputs', () => {
  it("finds a decoder export's cache inputs", () => {
    expect(hasPastInputs([{ name: 'input_ids' }, { name: 'past_key_values.0.key' }])).toBe(true);
    expect(hasPastInputs([{ name: 'input_ids' }, { name: 'past_key_values' }])).toBe(false);
  });
});
