import {
  endpointSpecSchema,
  ErrorCode,
  givesPooledEmbedding,
  isTaskCompatible,
  type ModelTask,
  ModelgateError,
  parseModelId,
  rawEndpointRefusal,
} from '@modelgate/contracts';
import { type EntityManager } from 'typeorm';
import { ModelEntity } from '../models/model.entity.js';

/** The model row `modelId` (`name:version`) names, or null. */
export async function findModelRow(manager: EntityManager, modelId: string): Promise<ModelEntity | null> {
  const key = parseModelId(modelId);
  if (key === undefined) return null;
  return manager.getRepository(ModelEntity).findOneBy({ name: key.name, version: Number(key.version) });
}

/**
 * The model `modelId` names, when an endpoint of `endpointTask` may route to it. Otherwise:
 * NOT_FOUND (no such model), CONFLICT (not READY, with its status and reason), INVALID_ARGUMENT
 * (a task the endpoint cannot serve; a raw model: /serve answers tasks, and raw models are
 * called by tensors at /v2/models; a generative model behind a raw endpoint, which the gateway
 * serves with one ModelInfer call, not the decode loop). `field` is the request field that named
 * the model.
 */
export async function findRoutableModel(
  manager: EntityManager,
  modelId: string,
  endpointTask: ModelTask,
  field: string,
): Promise<ModelEntity> {
  const row = await findModelRow(manager, modelId);
  if (row === null) {
    throw new ModelgateError(ErrorCode.NOT_FOUND, `${field}: model ${modelId} does not exist`, { field });
  }
  if (row.status !== 'READY') {
    const why = row.statusReason ? ` (${row.statusReason})` : '';
    throw new ModelgateError(
      ErrorCode.CONFLICT,
      `${field}: model ${modelId} is ${row.status}${why}; only READY models can be routed`,
      { field },
    );
  }
  if (row.task === 'raw') {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `${field}: model ${modelId} does raw (tensors in, tensors out), which no endpoint serves: ` +
        `call it at /v2/models/${row.name}/versions/${row.version}/infer, or register it with the task it does`,
      { field },
    );
  }
  if (!isTaskCompatible(endpointTask, row.task)) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `${field}: model ${modelId} does ${row.task}, which a ${endpointTask} endpoint cannot serve`,
      { field },
    );
  }
  const rawRefusal = endpointTask === 'raw' ? rawEndpointRefusal(row.task) : undefined;
  if (rawRefusal !== undefined) {
    throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${field}: model ${modelId}: ${rawRefusal}`, {
      field,
    });
  }
  return row;
}

/** What an endpoint's routes are checked against. */
export interface RoutingEndpoint {
  task: ModelTask;
  preprocessing: { maxTokens?: number | null };
  postprocessing: { pooling?: string | null };
}

/**
 * The model `modelId` names, when `endpoint` as it stands may route to it: findRoutableModel,
 * then the endpoint's options held against the model (pooling, maxTokens, a raw endpoint's
 * options). Every way a route comes to be (set by hand, a rollout's candidate, routes a rollout
 * puts back) goes through it.
 */
export async function findModelToRoute(
  manager: EntityManager,
  endpoint: RoutingEndpoint,
  modelId: string,
  field: string,
): Promise<ModelEntity> {
  const model = await findRoutableModel(manager, modelId, endpoint.task, field);
  refusePoolingOfPooledModel(endpoint.postprocessing.pooling, model, field);
  refuseTokensBeyondModel(endpoint.preprocessing.maxTokens, model, field);
  refuseOptionsRawModelIgnores(endpoint, model, field);
  return model;
}

/**
 * Refuses an endpoint's `pooling` beside a model whose embedding comes out pooled
 * (givesPooledEmbedding): the gateway answers that embedding as it is, so the pooling would be
 * stored and never applied. `field` names what brought the two together.
 */
export function refusePoolingOfPooledModel(
  pooling: string | null | undefined,
  model: Pick<ModelEntity, 'name' | 'version' | 'io'>,
  field: string,
): void {
  if (pooling === undefined || pooling === null || !givesPooledEmbedding(model.io?.outputs ?? [])) return;
  throw new ModelgateError(
    ErrorCode.INVALID_ARGUMENT,
    `${field}: model ${model.name}:${model.version} gives a pooled embedding ([batch, hidden]), answered as it ` +
      `is, so postprocessing.pooling '${pooling}' would never apply; pooling needs a last_hidden_state of ` +
      `[batch, sequence, hidden]: leave it out`,
    { field },
  );
}

/**
 * Refuses an endpoint's `preprocessing.maxTokens` above what `model` takes (the tokenizer's
 * model_max_length, capped by config.json's positions, recorded at preparation): the gateway cuts
 * inputs to that, so the larger limit would be stored and never apply. A model prepared before the
 * fact was recorded is not checked.
 */
export function refuseTokensBeyondModel(
  maxTokens: number | null | undefined,
  model: Pick<ModelEntity, 'name' | 'version' | 'io'>,
  field: string,
): void {
  const takes = model.io?.maxTokens;
  if (maxTokens === undefined || maxTokens === null || takes === undefined || maxTokens <= takes) return;
  throw new ModelgateError(
    ErrorCode.INVALID_ARGUMENT,
    `${field}: preprocessing.maxTokens ${maxTokens} exceeds the ${takes} tokens model ${model.name}:${model.version} ` +
      `takes (its tokenizer's model_max_length and config.json's positions); set it to ${takes} or less, or leave ` +
      "it out for the model's maximum",
    { field },
  );
}

/**
 * Refuses the options of a raw endpoint that `model`'s task would ignore. A raw endpoint answers
 * with the task of the model it routes to, and the gateway applies that task's options only, so
 * each routed model is held to what an endpoint of its own task accepts (image limits beside a
 * text model, topK beside an embedder...). Endpoints of a task are checked by their own spec.
 */
export function refuseOptionsRawModelIgnores(
  endpoint: { task: ModelTask; preprocessing: object; postprocessing: object },
  model: Pick<ModelEntity, 'name' | 'version' | 'task'>,
  field: string,
): void {
  if (endpoint.task !== 'raw') return;
  const asTask = endpointSpecSchema.safeParse({
    name: 'raw-endpoint',
    task: model.task,
    routes: [{ model: `${model.name}:${model.version}`, weight: 100, role: 'primary' }],
    preprocessing: endpoint.preprocessing,
    postprocessing: endpoint.postprocessing,
  });
  const issues = (asTask.error?.issues ?? []).filter(
    (issue) => issue.path[0] === 'preprocessing' || issue.path[0] === 'postprocessing',
  );
  const [first] = issues;
  if (first === undefined) return;
  const why = `(${field}: model ${model.name}:${model.version} does ${model.task}, and a raw endpoint answers as its model's task does)`;
  throw new ModelgateError(
    ErrorCode.INVALID_ARGUMENT,
    issues.map((issue) => `${issue.path.join('.')}: ${issue.message} ${why}`).join('; '),
    { field: first.path.join('.') },
  );
}
