import { type TensorMetadata } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { checkIoForTask } from './io-requirements.js';
import { checkRankingOutputs } from './ranking-outputs.js';

const tokens: TensorMetadata[] = [
  { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] },
  { name: 'attention_mask', datatype: 'INT64', dims: [-1, -1] },
  { name: 'token_type_ids', datatype: 'INT64', dims: [-1, -1] },
];

describe('checkRankingOutputs', () => {
  it('accepts a cross-encoder with one logit per pair', () => {
    const logits: TensorMetadata = { name: 'logits', datatype: 'FP32', dims: [-1, 1] };
    expect(checkRankingOutputs([logits])).toEqual([]);
    expect(checkIoForTask('text-ranking', tokens, [logits])).toEqual([]);
  });

  it('refuses a two-class classifier, pointing at text-classification', () => {
    expect(checkRankingOutputs([{ name: 'logits', datatype: 'FP32', dims: [-1, 2] }])).toEqual([
      "task text-ranking needs one relevance logit per pair, logits [batch, 1]; the model's logits has 2 columns " +
        '(a classifier with several classes: register it as text-classification)',
    ]);
  });

  it('refuses an embedder, listing what the model outputs', () => {
    const hidden: TensorMetadata = { name: 'last_hidden_state', datatype: 'FP32', dims: [-1, -1, 128] };
    expect(checkIoForTask('text-ranking', tokens, [hidden])).toEqual([
      'task text-ranking needs an FP32 output named logits of shape [batch, 1] (a cross-encoder); ' +
        'the model has outputs last_hidden_state (FP32 [-1, -1, 128])',
    ]);
  });
});
