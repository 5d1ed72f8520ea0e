import { type TensorMetadata } from '@modelgate/contracts';
import { describeTensor, describeTensors } from '@modelgate/contracts';

/** The outputs an extractive question-answering head gives: one logit per token for each end of the span. */
export const SPAN_OUTPUT_NAMES = ['start_logits', 'end_logits'] as const;

/**
 * What keeps a model's outputs from serving question-answering, as sentences a person can act on;
 * empty when it has 2-D FP32 `start_logits` and `end_logits` [batch, sequence].
 */
export function checkSpanOutputs(outputs: readonly TensorMetadata[]): string[] {
  const problems: string[] = [];
  for (const name of SPAN_OUTPUT_NAMES) {
    const output = outputs.find((candidate) => candidate.name === name);
    if (output === undefined) {
      const has = describeTensors(outputs);
      problems.push(
        `task question-answering needs an FP32 output named ${name} [batch, sequence] (a span head such as ` +
          `BertForQuestionAnswering's); the model has outputs ${has}`,
      );
    } else if (output.datatype !== 'FP32' || output.dims.length !== 2) {
      problems.push(
        `task question-answering needs ${name} to be FP32 [batch, sequence]; the model declares ${describeTensor(output)}`,
      );
    }
  }
  return problems;
}
