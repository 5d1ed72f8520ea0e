// What the text tasks share: the tokenizer a model must have, its encoded rows as worker inputs, and
// the output a task reads. A text task module is its parser options and its answer (textTask).
import { type EndpointSpec, ErrorCode, ModelgateError, type ModelTask } from '@modelgate/contracts';
import { type InferOutput } from '@modelgate/inference-client';
import {
  type EncodedInputs,
  type ServeRequest,
  type TextTokenizer,
  encodeInputs,
  parseServeRequest,
} from '@modelgate/processing';
import { type ServableModel } from '../../endpoints/endpoint-table.js';
import { type TaskModule, type TaskRows, type WorkerInputs } from './task-module.js';

/** The tokenizer of `model`; a model without one takes tensors at the v2 route. */
export function requireTokenizer(model: ServableModel, endpoint: EndpointSpec): TextTokenizer {
  const tokenizer = model.tokenizer;
  if (!tokenizer) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `endpoint ${endpoint.name} takes tensors: use /v2/models/${model.spec.name}/infer`,
    );
  }
  return tokenizer;
}

/** The encoded tensors as worker inputs, in the order `model` declares its inputs. */
export function workerInputs(model: ServableModel, tensors: EncodedInputs['tensors']): WorkerInputs {
  return model.inputNames.map((name) => {
    const tensor = tensors[name];
    if (!tensor) throw new ModelgateError(ErrorCode.INTERNAL, `input ${name} was not built`);
    return { name, datatype: tensor.datatype, dims: tensor.dims, data: tensor.data };
  });
}

/** The output named `preferred`, else the model's first. */
export function firstOutput(outputs: Record<string, InferOutput>, preferred: string): InferOutput {
  const output = outputs[preferred] ?? Object.values(outputs)[0];
  if (!output) throw new ModelgateError(ErrorCode.INTERNAL, 'the worker returned no outputs');
  return output;
}

/** Everything a text task's answer reads. */
export interface TextAnswerInput {
  model: ServableModel;
  endpoint: EndpointSpec;
  request: ServeRequest;
  outputs: Record<string, InferOutput>;
  /** The rows' tensors (input_ids, attention_mask) as sent. */
  tensors: EncodedInputs['tensors'];
}

/** Tokenizes `request` for `model` on `endpoint` with the token limits and truncation it asks for. */
function encodeText(model: ServableModel, endpoint: EndpointSpec, request: ServeRequest): EncodedInputs {
  const tokenizer = requireTokenizer(model, endpoint);
  return encodeInputs({
    texts: request.texts,
    pairs: request.pairs,
    tokenizer,
    inputNames: model.inputNames,
    maxTokens: endpoint.preprocessing.maxTokens ?? tokenizer.maxLength,
    truncation: request.truncation,
    batch: request.batch,
    inputField: request.inputField,
  });
}

/**
 * A task whose body is read by parseServeRequest as `task` reads it, whose rows are the encoded
 * texts (one row per text or pair), and whose predictions `answer` reads from the outputs.
 */
export function textTask(task: ModelTask, answer: (input: TextAnswerInput) => unknown[]): TaskModule {
  return {
    parse(body, endpoint) {
      const request = parseServeRequest(body, endpoint.preprocessing, { task });
      return {
        check: (model) => void encodeText(model, endpoint, request),
        rows: (model): TaskRows => {
          const encoded = encodeText(model, endpoint, request);
          return {
            inputs: workerInputs(model, encoded.tensors),
            promptTokens: encoded.lengths.reduce((sum, length) => sum + length, 0),
            answer: (outputs) => answer({ model, endpoint, request, outputs, tensors: encoded.tensors }),
          };
        },
      };
    },
  };
}
