import {
  type OpenAPIObject,
  type OperationObject,
  type ParameterObject,
  type SchemaObject,
} from '@nestjs/swagger';
import { HTTP_STATUS_BY_CODE } from '@modelgate/contracts';
import { serveRequestSchema } from '@modelgate/processing';
import { z } from 'zod';

const endpointParameter: ParameterObject = {
  name: 'endpoint',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' },
};

const headerParameters: ParameterObject[] = [
  {
    name: 'x-request-id',
    in: 'header',
    required: false,
    description: 'Echoed on the answer; one is generated when absent or malformed.',
    schema: { type: 'string' },
  },
  {
    name: 'x-modelgate-route-key',
    in: 'header',
    required: false,
    description: 'Keeps a client on one canary route (an endpoint may name another header).',
    schema: { type: 'string' },
  },
  {
    name: 'prefer',
    in: 'header',
    required: false,
    description: '`respond-async` queues the request and answers 202 with a job to poll.',
    schema: { type: 'string' },
  },
];

const errorSchema: SchemaObject = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string', enum: Object.keys(HTTP_STATUS_BY_CODE) },
        message: { type: 'string' },
        request_id: { type: 'string' },
        field: { type: 'string' },
      },
      required: ['code', 'message', 'request_id'],
    },
  },
};

/** One operation of the serve routes; `pinned` adds the version parameter. */
function serveOperation(operationId: string, pinned: boolean): OperationObject {
  return {
    operationId,
    tags: ['Serving'],
    summary: pinned
      ? 'Runs the endpoint on one model version, bypassing its routes'
      : "Runs the endpoint's model (weighted routes, sticky key)",
    parameters: [
      endpointParameter,
      ...(pinned
        ? [{ name: 'version', in: 'path' as const, required: true, schema: { type: 'string' as const } }]
        : []),
      ...headerParameters,
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: z.toJSONSchema(serveRequestSchema, { target: 'openapi-3.0' }) as SchemaObject,
        },
      },
    },
    responses: {
      '200': {
        description: '`{endpoint, model, version, route, predictions}`, one prediction per input.',
        headers: {
          'x-modelgate-model': { description: 'The model that answered, `name:version`.' },
          'server-timing': { description: 'tokenize, queue, infer, post and total durations in ms.' },
        },
      },
      '202': { description: 'Queued (`Prefer: respond-async`): `{job, status_url}`.' },
      default: {
        description:
          '`{error: {code, message, request_id, field?}}`: 400 invalid body (names the field), 404 ' +
          'unknown endpoint or version, 413 body or batch too large, 415 not JSON, 422 over the token ' +
          'limit with truncation off, 429 worker queue full (Retry-After), 503 no ready worker, 504 ' +
          'deadline exceeded.',
        content: { 'application/json': { schema: errorSchema } },
      },
    },
  };
}

/**
 * Adds `POST /serve/:endpoint[/:version]` to the gateway's OpenAPI document. Plain Fastify routes
 * serve them (serve-routes.ts), out of Nest's sight, so Swagger's controller scan cannot find them:
 * this describes those very routes instead of keeping a Nest controller that would never run.
 * The operation ids are the ones the former Nest controller gave them, so generated clients keep
 * their method names.
 */
export function addServeRoutesToDocument(document: OpenAPIObject): OpenAPIObject {
  document.paths['/serve/{endpoint}'] = { post: serveOperation('ServingController_serve', false) };
  document.paths['/serve/{endpoint}/{version}'] = {
    post: serveOperation('ServingController_servePinned', true),
  };
  return document;
}
