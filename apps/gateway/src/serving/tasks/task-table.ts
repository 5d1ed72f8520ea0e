// The task table: the one place that maps a model's task to the module serving it on /serve. A new
// task adds its module (serving/tasks/<task>.ts, the face in task-module.ts) and a row here.
import { ErrorCode, type ModelTask, ModelgateError } from '@modelgate/contracts';
import { featureExtraction } from './feature-extraction.js';
import { imageClassification } from './image-classification.js';
import { questionAnswering } from './question-answering.js';
import { type TaskModule } from './task-module.js';
import { textClassification } from './text-classification.js';
import { textRanking } from './text-ranking.js';
import { tokenClassification } from './token-classification.js';

/** The tasks /serve answers with one ModelInfer call. */
const TASKS: Partial<Record<ModelTask, TaskModule>> = {
  'text-classification': textClassification,
  'feature-extraction': featureExtraction,
  'text-ranking': textRanking,
  'token-classification': tokenClassification,
  'question-answering': questionAnswering,
  'image-classification': imageClassification,
};

/** A raw model reads tensors, which /serve bodies do not carry: it is served at the v2 route. */
const rawTensors: TaskModule = {
  parse(_body, endpoint, model) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `endpoint ${endpoint.name} takes tensors: use /v2/models/${model.spec.name}/infer`,
    );
  },
};

/** The module serving a model of `task` (generators stream instead: serving/generation). */
export function taskModule(task: ModelTask): TaskModule {
  const module = task === 'raw' ? rawTensors : TASKS[task];
  if (module) return module;
  // Generated text streams from the worker's ModelGenerate (serving/generation), never one ModelInfer.
  throw new ModelgateError(ErrorCode.INTERNAL, `${task} answers come from the generation path`);
}
