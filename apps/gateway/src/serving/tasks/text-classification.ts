// text-classification on /serve: a text (or a pair) per row; logits [n, labels] become the labels
// best first, read with the model's labels and problem type and the endpoint's postprocessing.
import { type EndpointSpec } from '@modelgate/contracts';
import { type InferOutput } from '@modelgate/inference-client';
import {
  type ClassScore,
  type ClassifyOptions,
  classify,
  resolveClassifyOptions,
} from '@modelgate/processing';
import { type ServableModel } from '../../endpoints/endpoint-table.js';
import { firstOutput, textTask } from './text-rows.js';

/** The labels of each row of `logits` (a text or an image classifier's), best first. */
export function classifyLogits(
  model: ServableModel,
  endpoint: EndpointSpec,
  outputs: Record<string, InferOutput>,
  topK: number | undefined,
  functionToApply?: ClassifyOptions['functionToApply'],
): ClassScore[][] {
  const logits = firstOutput(outputs, 'logits');
  const options = resolveClassifyOptions({
    requestTopK: topK,
    requestFunction: functionToApply,
    postprocessing: endpoint.postprocessing,
    modelLabels: model.labels,
    modelConfig: model.tokenizer?.modelConfig ?? model.image?.modelConfig,
  });
  return classify(logits.data as Float32Array, logits.dims, options);
}

export const textClassification = textTask('text-classification', ({ model, endpoint, outputs, request }) =>
  classifyLogits(model, endpoint, outputs, request.topK, request.functionToApply),
);
