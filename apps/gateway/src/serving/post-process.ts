// Tensors → JSON for /serve answers, by the model's task (text- and image-classification,
// feature-extraction, text-ranking, token-classification).
import { type EndpointSpec, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type InferOutput } from '@modelgate/inference-client';
import {
  type ClassScore,
  type EncodedInputs,
  type ServeRequest,
  classify,
  classifyTokenRows,
  embed,
  rankTexts,
  resolveClassifyOptions,
} from '@modelgate/processing';
import { type ServableModel } from '../endpoints/endpoint-table.js';

/** The predictions of one answer: a row per input, in the shape the endpoint's task gives. */
export function postProcess(
  model: ServableModel,
  endpoint: EndpointSpec,
  outputs: Record<string, InferOutput>,
  inputs: EncodedInputs['tensors'],
  request: Pick<ServeRequest, 'texts' | 'topK' | 'ranking' | 'tokenClassification'>,
): unknown[] {
  const attentionMask = inputs.attention_mask?.data;
  switch (model.spec.task) {
    case 'text-classification':
    case 'image-classification': {
      // An image classifier's logits [n, labels] read as a text classifier's (labels, problem type).
      const logits = firstOutput(outputs, 'logits');
      const options = resolveClassifyOptions({
        requestTopK: request.topK,
        postprocessing: endpoint.postprocessing,
        modelLabels: model.labels,
        modelConfig: model.tokenizer?.modelConfig ?? model.image?.modelConfig,
      });
      return classify(logits.data as Float32Array, logits.dims, options) satisfies ClassScore[][];
    }
    case 'feature-extraction': {
      const hidden = firstOutput(outputs, 'last_hidden_state');
      if (hidden.dims.length === 2) {
        return embed(hidden.data as Float32Array, [hidden.dims[0] ?? 0, 1, hidden.dims[1] ?? 0], undefined, {
          pooling: 'cls',
          normalize: endpoint.postprocessing.normalize,
        }).map((embedding) => ({ embedding }));
      }
      return embed(hidden.data as Float32Array, hidden.dims, attentionMask, {
        pooling: endpoint.postprocessing.pooling,
        normalize: endpoint.postprocessing.normalize,
      }).map((embedding) => ({ embedding }));
    }
    case 'text-ranking': {
      const logits = firstOutput(outputs, 'logits');
      const ranking = request.ranking;
      return rankTexts(logits.data as Float32Array, logits.dims, {
        rawScores: ranking?.rawScores,
        topN: ranking?.topN,
        texts: ranking?.returnText ? ranking.texts : undefined,
      });
    }
    case 'token-classification': {
      const logits = firstOutput(outputs, 'logits');
      const tokenizer = model.tokenizer;
      const inputIds = inputs.input_ids?.data;
      if (!tokenizer || !inputIds)
        throw new ModelgateError(ErrorCode.INTERNAL, 'token-classification needs the tokens');
      return classifyTokenRows({
        texts: request.texts,
        tokenizer,
        inputIds,
        attentionMask,
        logits: logits.data as Float32Array,
        logitsDims: logits.dims,
        labels: model.labels ?? tokenizer.modelConfig.labels,
        options: request.tokenClassification ?? { aggregationStrategy: 'none', ignoreLabels: ['O'] },
      });
    }
    case 'question-answering':
      // Its rows are windows, not inputs: question-answering.ts decodes them with their plan.
      throw new ModelgateError(
        ErrorCode.INTERNAL,
        'question-answering answers are decoded by prepareQuestions',
      );
    case 'text-generation':
    case 'image-to-text':
      // Generated text streams from the worker's ModelGenerate, never as one ModelInfer answer.
      throw new ModelgateError(
        ErrorCode.INTERNAL,
        `${model.spec.task} answers come from the generation path`,
      );
    case 'raw':
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        'raw models are served at /v2/models/:model/infer',
      );
  }
}

function firstOutput(outputs: Record<string, InferOutput>, preferred: string): InferOutput {
  const output = outputs[preferred] ?? Object.values(outputs)[0];
  if (!output) throw new ModelgateError(ErrorCode.INTERNAL, 'the worker returned no outputs');
  return output;
}
