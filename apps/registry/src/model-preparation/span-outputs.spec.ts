import { type TensorMetadata } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { checkIoForTask } from './io-requirements.js';
import { checkSpanOutputs } from './span-outputs.js';

const tokens: TensorMetadata[] = [
  { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] },
  { name: 'attention_mask', datatype: 'INT64', dims: [-1, -1] },
  { name: 'token_type_ids', datatype: 'INT64', dims: [-1, -1] },
];
const start: TensorMetadata = { name: 'start_logits', datatype: 'FP32', dims: [-1, -1] };
const end: TensorMetadata = { name: 'end_logits', datatype: 'FP32', dims: [-1, -1] };

describe('checkSpanOutputs', () => {
  it('accepts a span head with start_logits and end_logits [batch, sequence]', () => {
    expect(checkSpanOutputs([start, end])).toEqual([]);
    expect(checkIoForTask('question-answering', tokens, [start, end])).toEqual([]);
  });

  it('says that a sequence classifier has no span head, listing its outputs', () => {
    const logits: TensorMetadata = { name: 'logits', datatype: 'FP32', dims: [-1, 2] };
    expect(checkIoForTask('question-answering', tokens, [logits])).toEqual([
      "task question-answering needs an FP32 output named start_logits [batch, sequence] (a span head such as BertForQuestionAnswering's); the model has outputs logits (FP32 [-1, 2])",
      "task question-answering needs an FP32 output named end_logits [batch, sequence] (a span head such as BertForQuestionAnswering's); the model has outputs logits (FP32 [-1, 2])",
    ]);
  });

  it('refuses span logits of the wrong rank or type', () => {
    const threeD: TensorMetadata = { name: 'end_logits', datatype: 'FP32', dims: [-1, -1, 1] };
    const half: TensorMetadata = { name: 'start_logits', datatype: 'FP16', dims: [-1, -1] };
    expect(checkSpanOutputs([half, threeD])).toEqual([
      'task question-answering needs start_logits to be FP32 [batch, sequence]; the model declares start_logits (FP16 [-1, -1])',
      'task question-answering needs end_logits to be FP32 [batch, sequence]; the model declares end_logits (FP32 [-1, -1, 1])',
    ]);
  });
});
