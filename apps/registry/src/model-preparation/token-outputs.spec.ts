import { type TensorMetadata } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { checkIoForTask } from './io-requirements.js';
import { checkTokenLabels, checkTokenOutputs } from './token-outputs.js';

const INPUTS: TensorMetadata[] = [
  { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] },
  { name: 'attention_mask', datatype: 'INT64', dims: [-1, -1] },
];
const TOKEN_LOGITS: TensorMetadata = { name: 'logits', datatype: 'FP32', dims: [-1, -1, 7] };
const NER_LABELS = ['O', 'B-PER', 'I-PER', 'B-LOC', 'I-LOC', 'B-ORG', 'I-ORG'];

describe('token-classification outputs', () => {
  it('accept a 3-D FP32 logits [batch, sequence, labels]', () => {
    expect(checkIoForTask('token-classification', INPUTS, [TOKEN_LOGITS])).toEqual([]);
  });

  it('refuse a sequence classifier, naming what the model has', () => {
    const problems = checkTokenOutputs([{ name: 'logits', datatype: 'FP32', dims: [-1, 2] }]);
    expect(problems).toEqual([
      'task token-classification needs logits to be FP32 [batch, sequence, labels]; the model declares logits (FP32 [-1, 2])',
    ]);
  });

  it('refuse a model without logits', () => {
    const [problem] = checkTokenOutputs([
      { name: 'last_hidden_state', datatype: 'FP32', dims: [-1, -1, 128] },
    ]);
    expect(problem).toMatch(/needs an FP32 output named logits .*has outputs last_hidden_state \(FP32/);
  });
});

describe('token-classification labels', () => {
  it('fit when id2label names one label per logit', () => {
    expect(checkTokenLabels(NER_LABELS, [TOKEN_LOGITS])).toBeUndefined();
  });

  it('are required: a token classifier answers label names', () => {
    expect(checkTokenLabels(null, [TOKEN_LOGITS])).toMatch(/needs label names: .*id2label/);
  });

  it('must be as many as the logits per token', () => {
    expect(checkTokenLabels(NER_LABELS.slice(0, 5), [TOKEN_LOGITS])).toBe(
      'the model has 5 labels (id2label) but logits has 7 per token',
    );
  });
});
