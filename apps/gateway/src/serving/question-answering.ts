// question-answering on /serve: every pair's context windows become rows of the ONE worker call of
// the request (the worker's dynamic batcher merges them with other requests' rows), and the span
// logits of each pair's rows decode into its answers (libs/processing encode-questions, answer-spans).
import { type EndpointSpec, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type InferOutput } from '@modelgate/inference-client';
import {
  type AnswerSpan,
  type EncodedQuestions,
  type QuestionAnsweringRequest,
  type TextTokenizer,
  answerQuestions,
  encodeQuestions,
} from '@modelgate/processing';
import { type ServableModel } from '../endpoints/endpoint-table.js';

/** The rows of a question-answering request and how to read the worker's answer. */
export interface PreparedQuestions {
  tensors: EncodedQuestions['tensors'];
  lengths: number[];
  /** Answers per pair, best first, from the worker's start_logits and end_logits. */
  answer(outputs: Record<string, InferOutput>): AnswerSpan[][];
}

function spanOutput(
  outputs: Record<string, InferOutput>,
  name: string,
  rows: number,
): InferOutput & { data: Float32Array } {
  const output = outputs[name];
  if (output?.datatype !== 'FP32' || output.dims.length !== 2 || output.dims[0] !== rows) {
    throw new ModelgateError(
      ErrorCode.INTERNAL,
      `the worker answered no FP32 ${name} [${rows}, sequence] for a question-answering model`,
    );
  }
  return output;
}

/** Tokenizes and windows `request` for `model` on `endpoint` (window length: the endpoint's maxTokens, at most 384). */
export function prepareQuestions(
  model: ServableModel,
  endpoint: EndpointSpec,
  tokenizer: TextTokenizer,
  request: QuestionAnsweringRequest,
): PreparedQuestions {
  const encoded = encodeQuestions({
    request,
    tokenizer,
    inputNames: model.inputNames,
    maxTokens: endpoint.preprocessing.maxTokens,
    maxRows: model.spec.batching.maxQueueSize,
  });
  return {
    tensors: encoded.tensors,
    lengths: encoded.lengths,
    answer: (outputs) => {
      const rows = encoded.lengths.length;
      const start = spanOutput(outputs, 'start_logits', rows);
      const end = spanOutput(outputs, 'end_logits', rows);
      if (end.dims[1] !== start.dims[1]) {
        throw new ModelgateError(
          ErrorCode.INTERNAL,
          'the worker answered start_logits and end_logits of different lengths',
        );
      }
      return answerQuestions(
        { start: start.data, end: end.data, sequence: start.dims[1] ?? 0 },
        encoded.pairs,
        request.options,
      );
    },
  };
}
