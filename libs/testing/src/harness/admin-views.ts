import {
  type EndpointView,
  type ModelView,
  batchingSchema,
  postprocessingSchema,
  preprocessingSchema,
  runtimeSchema,
} from '@modelgate/contracts';

const CREATED_AT = '2026-11-25T00:00:00.000Z';

/**
 * A whole model view as the registry answers it (a PENDING raw model unless `fields` say
 * otherwise), for tests that stand in for the registry: the admin client checks every answer.
 */
export function sampleModelView(fields: Partial<ModelView> = {}): ModelView {
  return {
    id: 'demo:1',
    name: 'demo',
    version: '1',
    task: 'raw',
    status: 'PENDING',
    statusReason: null,
    workerGroup: 'default',
    source: null,
    artifact: null,
    encoder: null,
    externalData: [],
    tokenizer: null,
    labels: null,
    inputs: [],
    outputs: [],
    batching: batchingSchema.parse({}),
    runtime: runtimeSchema.parse({}),
    timings: null,
    preparedAt: null,
    createdAt: CREATED_AT,
    updatedAt: CREATED_AT,
    ...fields,
  };
}

/** A whole endpoint view as the registry answers it (no routes unless `fields` say otherwise). */
export function sampleEndpointView(fields: Partial<EndpointView> = {}): EndpointView {
  return {
    name: 'sentiment',
    task: 'text-classification',
    routes: [],
    preprocessing: preprocessingSchema.parse({}),
    postprocessing: postprocessingSchema.parse({}),
    stickyHeader: null,
    timeoutMs: null,
    generation: {},
    createdAt: CREATED_AT,
    updatedAt: CREATED_AT,
    ...fields,
  };
}
