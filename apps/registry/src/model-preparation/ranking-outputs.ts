import { type TensorMetadata } from '@modelgate/contracts';
import { describeTensors } from '@modelgate/contracts';

/**
 * What keeps a model from serving text-ranking, as sentences a person can act on; empty when it
 * fits. A cross-encoder gives one relevance logit per (query, text) pair: an FP32 `logits` of
 * [batch, 1]. A classifier with more classes is refused, since which class means "relevant"
 * cannot be told.
 */
export function checkRankingOutputs(outputs: readonly TensorMetadata[]): string[] {
  const logits = outputs.find((output) => output.name === 'logits');
  if (logits === undefined || logits.datatype !== 'FP32' || logits.dims.length !== 2) {
    return [
      `task text-ranking needs an FP32 output named logits of shape [batch, 1] (a cross-encoder); ` +
        `the model has outputs ${describeTensors(outputs)}`,
    ];
  }
  if (logits.dims[1] !== 1) {
    return [
      `task text-ranking needs one relevance logit per pair, logits [batch, 1]; the model's logits has ` +
        `${logits.dims[1] ?? '?'} columns (a classifier with several classes: register it as text-classification)`,
    ];
  }
  return [];
}
