import { type EndpointSpec, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type EncodedInputs, type ServeRequest, encodeInputs } from '@modelgate/processing';
import { type ServableModel } from '../endpoints/endpoint-table.js';
import { type PreparedQuestions, prepareQuestions } from './question-answering.js';

/** A text request's rows for its model: question-answering windows, or the encoded texts. */
export type EncodedText =
  | { questions: PreparedQuestions; encoded: PreparedQuestions }
  | { questions: undefined; encoded: EncodedInputs };

/**
 * Tokenizes a text `request` for `model` on `endpoint`, with every refusal that takes (a model
 * without a tokenizer, the token limits, question-answering windows): the serve path's first
 * stage, and the check of an asynchronous request before it is queued.
 */
export function encodeText(model: ServableModel, endpoint: EndpointSpec, request: ServeRequest): EncodedText {
  const tokenizer = model.tokenizer;
  if (!tokenizer) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `endpoint ${endpoint.name} takes tensors: use /v2/models/${model.spec.name}/infer`,
    );
  }
  // question-answering builds its own rows: a pair's context can take several windows.
  if (request.questionAnswering) {
    const questions = prepareQuestions(model, endpoint, tokenizer, request.questionAnswering);
    return { questions, encoded: questions };
  }
  const encoded = encodeInputs({
    texts: request.texts,
    pairs: request.pairs,
    tokenizer,
    inputNames: model.inputNames,
    maxTokens: endpoint.preprocessing.maxTokens ?? tokenizer.maxLength,
    truncation: request.truncation,
    batch: request.batch,
    inputField: request.inputField,
  });
  return { questions: undefined, encoded };
}
