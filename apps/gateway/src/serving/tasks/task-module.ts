// The face every /serve task has (KServe's preprocess → predict → postprocess): a task module reads
// a body as its task does and gives the worker rows of a model, and how to read that model's answer.
// The serve orchestrator (serving/serve.service.ts) finds the module in the task table
// (serving/tasks/task-table.ts) by the routed model's task and runs the same straight line for all.
import { type EndpointSpec } from '@modelgate/contracts';
import { type InferOutput, type InferRequest } from '@modelgate/inference-client';
import { type ServableModel } from '../../endpoints/endpoint-table.js';
import { type ConcurrencyGate } from '../concurrency-gate.js';

/** The input tensors of one ModelInfer call. */
export type WorkerInputs = InferRequest['inputs'];

/** What the process lends a task module while it builds rows. */
export interface TaskTools {
  /** Image decodes of this process at once (shared with generation's). */
  imageDecodes: ConcurrencyGate;
}

/** A model's worker rows for one call, and how to read the model's answer to them. */
export interface TaskRows {
  inputs: WorkerInputs;
  /** Tokens the model reads, special tokens included, over every row (after truncation); 0 for images. */
  promptTokens: number;
  /** The call's predictions, one per input, from the worker's outputs. */
  answer(outputs: Record<string, InferOutput>): unknown[];
}

/** A body validated by its task module, ready to become rows for any model of that task. */
export interface TaskCall {
  /**
   * Every refusal the rows of `model` would give, without running anything heavy (a text's
   * tokenization runs; an image is decoded only when rows are built): an asynchronous request's check.
   */
  check(model: ServableModel): void;
  /** The rows of `model` (the routed model, or a shadow of the same task). */
  rows(model: ServableModel, tools: TaskTools): TaskRows | Promise<TaskRows>;
}

/** One /serve task. */
export interface TaskModule {
  /** Validates `body` for `model` on `endpoint` (400, 413, 415), before any work. */
  parse(body: unknown, endpoint: EndpointSpec, model: ServableModel): TaskCall;
}
