// question-answering on /serve: every pair's context windows become rows of the ONE worker call of
// the request (the worker's dynamic batcher merges them with other requests' rows), and the span
// logits of each pair's rows decode into its answers (libs/processing encode-questions, answer-spans).
import { type EndpointSpec, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type InferOutput } from '@modelgate/inference-client';
import {
  type QuestionAnsweringRequest,
  answerQuestions,
  encodeQuestions,
  parseQuestionAnsweringRequest,
} from '@modelgate/processing';
import { type ServableModel } from '../../endpoints/endpoint-table.js';
import { type TaskModule, type TaskRows } from './task-module.js';
import { requireTokenizer, workerInputs } from './text-rows.js';

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

/**
 * Tokenizes and windows `request` for `model` on `endpoint` (window length: the endpoint's
 * maxTokens, at most 384); the answers of each pair, best first, come from start_logits and end_logits.
 */
function questionRows(
  model: ServableModel,
  endpoint: EndpointSpec,
  request: QuestionAnsweringRequest,
): TaskRows {
  const encoded = encodeQuestions({
    request,
    tokenizer: requireTokenizer(model, endpoint),
    inputNames: model.inputNames,
    maxTokens: endpoint.preprocessing.maxTokens,
    maxRows: model.spec.batching.maxQueueSize,
  });
  return {
    inputs: workerInputs(model, encoded.tensors),
    promptTokens: encoded.lengths.reduce((sum, length) => sum + length, 0),
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

export const questionAnswering: TaskModule = {
  parse(body, endpoint) {
    const request = parseQuestionAnsweringRequest(body, endpoint.preprocessing);
    return {
      check: (model) => void questionRows(model, endpoint, request),
      rows: (model) => questionRows(model, endpoint, request),
    };
  },
};
