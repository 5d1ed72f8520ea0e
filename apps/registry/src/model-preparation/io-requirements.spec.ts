import { type TensorMetadata } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { checkIoForTask, checkLabels, labelsFromHfConfig, repeatedLabelProblem } from './io-requirements.js';

const tokens: TensorMetadata[] = [
  { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] },
  { name: 'attention_mask', datatype: 'INT64', dims: [-1, -1] },
  { name: 'token_type_ids', datatype: 'INT64', dims: [-1, -1] },
];
const logits: TensorMetadata = { name: 'logits', datatype: 'FP32', dims: [-1, 2] };
const hidden: TensorMetadata = { name: 'last_hidden_state', datatype: 'FP32', dims: [-1, -1, 128] };

describe('checkIoForTask', () => {
  it('accepts a BERT classifier for text-classification and an embedder for feature-extraction', () => {
    expect(checkIoForTask('text-classification', tokens, [logits])).toEqual([]);
    expect(checkIoForTask('feature-extraction', tokens.slice(0, 2), [hidden])).toEqual([]);
    expect(
      checkIoForTask('feature-extraction', tokens, [
        { name: 'embeddings', datatype: 'FP32', dims: [-1, 384] },
      ]),
    ).toEqual([]);
  });

  it('says which output an embedder lacks when registered as text-classification', () => {
    expect(checkIoForTask('text-classification', tokens, [hidden])).toEqual([
      'task text-classification needs a 2-D FP32 output named logits; the model has outputs last_hidden_state (FP32 [-1, -1, 128])',
    ]);
  });

  it('names a missing input and lists what the model has', () => {
    const [problem] = checkIoForTask('text-classification', [tokens[1]!], [logits]);
    expect(problem).toBe(
      'task text-classification needs an input named input_ids; the model has inputs attention_mask (INT64 [-1, -1])',
    );
  });

  it('refuses inputs tokenization cannot produce and int32 token ids', () => {
    const pixel: TensorMetadata = { name: 'pixel_values', datatype: 'FP32', dims: [-1, 3, 224, 224] };
    expect(checkIoForTask('feature-extraction', [...tokens, pixel], [hidden])[0]).toContain(
      'the model also needs pixel_values',
    );
    const int32Ids: TensorMetadata = { name: 'input_ids', datatype: 'INT32', dims: [-1, -1] };
    expect(checkIoForTask('text-classification', [int32Ids, tokens[1]!], [logits])[0]).toBe(
      'task text-classification needs input_ids to be INT64; the model declares INT32',
    );
  });

  it('takes anything for raw', () => {
    expect(checkIoForTask('raw', [], [])).toEqual([]);
  });
});

describe('labels', () => {
  it('reads id2label in index order', () => {
    expect(labelsFromHfConfig({ id2label: { '1': 'POSITIVE', '0': 'NEGATIVE' } })).toEqual([
      'NEGATIVE',
      'POSITIVE',
    ]);
  });

  it('ignores id2label with gaps or odd values', () => {
    expect(labelsFromHfConfig({ id2label: { '0': 'A', '2': 'C' } })).toBeUndefined();
    expect(labelsFromHfConfig({ id2label: { '0': 7 } })).toBeUndefined();
    expect(labelsFromHfConfig(null)).toBeUndefined();
  });

  it("reports a label config.json's id2label gives two classes (the snapshot would refuse the model)", () => {
    const labels = labelsFromHfConfig({ id2label: { '0': 'SAME', '1': 'OTHER', '2': 'SAME' } }) ?? null;
    expect(repeatedLabelProblem(labels)).toBe(
      "label 'SAME' names classes 0 and 2 (config.json's id2label): give the model labels that name each class once",
    );
    expect(repeatedLabelProblem(['NEGATIVE', 'POSITIVE'])).toBeUndefined();
    expect(repeatedLabelProblem(null)).toBeUndefined();
  });

  it('reports labels that do not match the classes of logits', () => {
    expect(checkLabels(['a', 'b', 'c'], [logits])).toBe('the model has 3 labels but logits has 2 classes');
    expect(checkLabels(['a', 'b'], [logits])).toBeUndefined();
    expect(checkLabels(null, [logits])).toBeUndefined();
  });
});
