// Endpoints and their rollouts in the registry's OpenAPI document: the schemas are the ones the
// controllers parse with (@modelgate/contracts).
import {
  type ApiBody,
  createEndpointSchema,
  endpointViewSchema,
  rolloutViewSchema,
  setRoutesSchema,
  startRolloutSchema,
  updateEndpointSchema,
} from '@modelgate/contracts';
import { z } from 'zod';
import { type RegistryRoute, nameParams, registryErrors } from './admin-access.js';

const endpointView: ApiBody = { name: 'EndpointView', schema: endpointViewSchema };
const rolloutView: ApiBody = { name: 'RolloutView', schema: rolloutViewSchema };

const endpointCrudRoutes: RegistryRoute[] = [
  {
    method: 'post',
    path: '/v1/endpoints',
    operationId: 'EndpointsController_create',
    tag: 'endpoints',
    summary: 'Create an endpoint with one primary route to a READY model',
    body: {
      name: 'CreateEndpoint',
      schema: createEndpointSchema,
      examples: {
        sentiment: {
          summary: 'A classifier',
          value: { name: 'sentiment', task: 'text-classification', model: 'sst2:1' },
        },
      },
    },
    responses: {
      '201': { description: 'Created.', body: endpointView },
      ...registryErrors([400, 404, 409]),
    },
  },
  {
    method: 'get',
    path: '/v1/endpoints',
    operationId: 'EndpointsController_list',
    tag: 'endpoints',
    summary: 'List endpoints',
    responses: {
      '200': {
        description: 'Every endpoint.',
        body: { name: 'EndpointList', schema: z.array(endpointViewSchema) },
      },
      ...registryErrors([]),
    },
  },
  {
    method: 'get',
    path: '/v1/endpoints/{name}',
    operationId: 'EndpointsController_get',
    tag: 'endpoints',
    summary: 'Show an endpoint and its routes',
    pathParams: nameParams,
    responses: {
      '200': { description: 'The endpoint.', body: endpointView },
      ...registryErrors([400, 404]),
    },
  },
  {
    method: 'patch',
    path: '/v1/endpoints/{name}',
    operationId: 'EndpointsController_update',
    tag: 'endpoints',
    summary: 'Change limits and options; `null` clears a value',
    pathParams: nameParams,
    body: {
      name: 'UpdateEndpoint',
      schema: updateEndpointSchema,
      examples: {
        limits: {
          summary: 'Longer inputs, two labels',
          value: { preprocessing: { maxInputChars: 4000 }, postprocessing: { topK: 2 } },
        },
      },
    },
    responses: {
      '200': { description: 'The endpoint.', body: endpointView },
      ...registryErrors([400, 404]),
    },
  },
  {
    method: 'delete',
    path: '/v1/endpoints/{name}',
    operationId: 'EndpointsController_remove',
    tag: 'endpoints',
    summary: 'Delete an endpoint',
    pathParams: nameParams,
    responses: { '204': { description: 'Deleted.' }, ...registryErrors([400, 404, 409]) },
  },
  {
    method: 'put',
    path: '/v1/endpoints/{name}/routes',
    operationId: 'EndpointsController_setRoutes',
    tag: 'endpoints',
    summary: "Replace the endpoint's routes: weights, canary and shadow",
    pathParams: nameParams,
    body: {
      name: 'SetRoutes',
      schema: setRoutesSchema,
      examples: {
        canary: {
          summary: '90/10 canary',
          value: {
            routes: [
              { model: 'sst2:1', weight: 90 },
              { model: 'sst2:2', weight: 10, role: 'canary' },
            ],
          },
        },
      },
    },
    responses: {
      '200': { description: 'The endpoint.', body: endpointView },
      ...registryErrors([400, 404, 409]),
    },
  },
];

const rolloutAction = (action: 'pause' | 'resume' | 'abort' | 'promote', summary: string): RegistryRoute => ({
  method: 'post',
  path: `/v1/endpoints/{name}/rollout/${action}`,
  operationId: `RolloutsController_${action}`,
  tag: 'rollouts',
  summary,
  pathParams: nameParams,
  responses: {
    '200': { description: 'The rollout.', body: rolloutView },
    ...registryErrors([400, 404, 409]),
  },
});

const rolloutRoutes: RegistryRoute[] = [
  {
    method: 'post',
    path: '/v1/endpoints/{name}/rollouts',
    operationId: 'RolloutsController_start',
    tag: 'rollouts',
    summary: 'Start moving traffic to a candidate step by step, judged window by window',
    pathParams: nameParams,
    body: {
      name: 'StartRollout',
      schema: startRolloutSchema,
      examples: {
        steps: {
          summary: '10 → 50 → 100, a minute each',
          value: { to: 'sst2:2', steps: [10, 50, 100], intervalSeconds: 60 },
        },
      },
    },
    responses: {
      '201': { description: 'Started.', body: rolloutView },
      ...registryErrors([400, 404, 409]),
    },
  },
  {
    method: 'get',
    path: '/v1/endpoints/{name}/rollout',
    operationId: 'RolloutsController_get',
    tag: 'rollouts',
    summary: "The endpoint's latest rollout: state, step, window against thresholds, history",
    pathParams: nameParams,
    responses: {
      '200': { description: 'The rollout.', body: rolloutView },
      ...registryErrors([400, 404]),
    },
  },
  rolloutAction('pause', 'Hold the rollout at its step'),
  rolloutAction('resume', 'Resume a paused rollout'),
  rolloutAction('abort', 'Abort: all traffic back to the primary'),
  rolloutAction('promote', 'Promote the candidate to 100% now'),
];

/** Endpoints, their routes and their rollouts. */
export const endpointRoutes: RegistryRoute[] = [...endpointCrudRoutes, ...rolloutRoutes];
