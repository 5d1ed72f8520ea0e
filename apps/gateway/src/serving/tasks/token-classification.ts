// token-classification on /serve: one row per text; each token's labels, grouped into entities by
// the request's aggregation strategy, with character offsets from the tokens sent.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { classifyTokenRows } from '@modelgate/processing';
import { firstOutput, textTask } from './text-rows.js';

export const tokenClassification = textTask(
  'token-classification',
  ({ model, outputs, request, tensors }) => {
    const logits = firstOutput(outputs, 'logits');
    const tokenizer = model.tokenizer;
    const inputIds = tensors.input_ids?.data;
    if (!tokenizer || !inputIds) {
      throw new ModelgateError(ErrorCode.INTERNAL, 'token-classification needs the tokens');
    }
    return classifyTokenRows({
      texts: request.texts,
      tokenizer,
      inputIds,
      attentionMask: tensors.attention_mask?.data,
      logits: logits.data as Float32Array,
      logitsDims: logits.dims,
      labels: model.labels ?? tokenizer.modelConfig.labels,
      options: request.tokenClassification ?? { aggregationStrategy: 'none', ignoreLabels: ['O'] },
    });
  },
);
