import { type TensorMetadata } from '@modelgate/contracts';
import { describeTensor, describeTensors } from '@modelgate/contracts';

/**
 * What keeps a model's outputs from serving token-classification, as sentences a person can act
 * on; empty when it has a 3-D FP32 `logits` [batch, sequence, labels] (a per-token head).
 */
export function checkTokenOutputs(outputs: readonly TensorMetadata[]): string[] {
  const logits = outputs.find((output) => output.name === 'logits');
  if (logits === undefined) {
    const has = describeTensors(outputs);
    return [
      'task token-classification needs an FP32 output named logits [batch, sequence, labels] (a per-token ' +
        `head such as BertForTokenClassification's); the model has outputs ${has}`,
    ];
  }
  if (logits.datatype !== 'FP32' || logits.dims.length !== 3) {
    return [
      `task token-classification needs logits to be FP32 [batch, sequence, labels]; the model declares ${describeTensor(logits)}`,
    ];
  }
  return [];
}

/**
 * A problem when a token classifier's labels are missing or do not match the labels `logits`
 * declares; undefined when they fit (or the label count is dynamic and cannot be told).
 */
export function checkTokenLabels(
  labels: readonly string[] | null,
  outputs: readonly TensorMetadata[],
): string | undefined {
  if (labels === null || labels.length === 0) {
    return (
      'task token-classification needs label names: give labels at registration or an id2label in the ' +
      "tokenizer bundle's config.json (ids 0..n-1, e.g. O, B-PER, I-PER)"
    );
  }
  const classes = outputs.find((output) => output.name === 'logits')?.dims[2];
  if (classes === undefined || classes < 0 || labels.length === classes) return undefined;
  return `the model has ${labels.length} labels (id2label) but logits has ${classes} per token`;
}
