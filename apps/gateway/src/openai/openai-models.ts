/**
 * OpenAI's model list (`GET /v1/models`, `GET /v1/models/{id}`): the endpoints the OpenAI routes
 * serve (text-generation: completions and chat; feature-extraction: embeddings), each as a
 * `model` whose id is the endpoint's name, the `model` a client sends. Pure: no I/O.
 */
import { type EndpointSpec, ErrorCode, type ModelTask, ModelgateError } from '@modelgate/contracts';
import { z } from 'zod';

/** The endpoint tasks an OpenAI route serves. */
const OPENAI_TASKS: readonly ModelTask[] = ['text-generation', 'feature-extraction'];

export const openAiModelSchema = z.object({
  id: z.string().describe('The endpoint: the `model` of a completions, chat or embeddings request'),
  object: z.literal('model').describe('Always `model`'),
  created: z.int().describe('When this gateway first listed the endpoint, Unix seconds'),
  owned_by: z.literal('modelgate').describe('Always `modelgate`'),
  task: z
    .enum(['text-generation', 'feature-extraction'])
    .describe(
      'text-generation: /v1/completions and /v1/chat/completions; feature-extraction: /v1/embeddings',
    ),
});

export const openAiModelListSchema = z.object({
  object: z.literal('list').describe('Always `list`'),
  data: z.array(openAiModelSchema).describe('The endpoints, by name'),
});

export type OpenAiModel = z.infer<typeof openAiModelSchema>;
export type OpenAiModelList = z.infer<typeof openAiModelListSchema>;

function isOpenAiEndpoint(endpoint: EndpointSpec): boolean {
  return OPENAI_TASKS.includes(endpoint.task);
}

function toModel(endpoint: EndpointSpec, created: number): OpenAiModel {
  return {
    id: endpoint.name,
    object: 'model',
    created,
    owned_by: 'modelgate',
    task: endpoint.task as OpenAiModel['task'],
  };
}

/** The list of `endpoints` the OpenAI routes serve, by name; `createdOf` gives each one's time. */
export function listOpenAiModels(
  endpoints: Iterable<EndpointSpec>,
  createdOf: (name: string) => number,
): OpenAiModelList {
  const data = [...endpoints]
    .filter(isOpenAiEndpoint)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((endpoint) => toModel(endpoint, createdOf(endpoint.name)));
  return { object: 'list', data };
}

/** The model `id`; 404 naming why when no OpenAI route serves an endpoint of that name. */
export function findOpenAiModel(
  endpoints: ReadonlyMap<string, EndpointSpec>,
  id: string,
  createdOf: (name: string) => number,
): OpenAiModel {
  const endpoint = endpoints.get(id);
  if (!endpoint) {
    throw new ModelgateError(ErrorCode.NOT_FOUND, `model '${id.slice(0, 80)}' does not exist`, {
      field: 'model',
    });
  }
  if (!isOpenAiEndpoint(endpoint)) {
    throw new ModelgateError(
      ErrorCode.NOT_FOUND,
      `model '${id}' is an endpoint of task ${endpoint.task}, which no /v1 route serves: call /serve/${id}`,
      { field: 'model' },
    );
  }
  return toModel(endpoint, createdOf(endpoint.name));
}
