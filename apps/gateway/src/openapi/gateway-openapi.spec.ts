import 'reflect-metadata';
import {
  type JsonObject,
  checkOpenApiDocument,
  undescribedFields,
  undocumentedRoutes,
  unservedOperations,
} from '@modelgate/contracts';
import {
  DEFAULT_IMAGE_LIMITS,
  SERVE_TASKS,
  SERVE_TASK_SCHEMAS,
  parseImageClassificationRequest,
  parseImageToTextRequest,
  parseServeRequest,
} from '@modelgate/processing';
import { nestControllerRoutes, refusedOpenApiExamples } from '@modelgate/testing';
import { type FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { GATEWAY_CONTROLLERS } from '../gateway.module.js';
import { parseServeGenerationBody } from '../serving/generation/serve-generation-body.js';
import { type ServeRouteDeps, installServeRoutes } from '../serving/serve-routes.js';
import { gatewayApi, gatewayOpenApiDocument } from './gateway-openapi.js';

/** The plain Fastify routes installServeRoutes registers, recorded by a stand-in for Fastify. */
function serveRoutesInstalled(): { method: string; path: string }[] {
  const routes: { method: string; path: string }[] = [];
  const recorder = new Proxy(
    {},
    {
      get:
        (_target, method) =>
        (path: unknown): void => {
          if (typeof method === 'string' && typeof path === 'string' && path.startsWith('/')) {
            routes.push({ method: method.toUpperCase(), path });
          }
        },
    },
  );
  installServeRoutes(recorder as FastifyInstance, {} as ServeRouteDeps);
  return routes;
}

const served = [...nestControllerRoutes(GATEWAY_CONTROLLERS), ...serveRoutesInstalled()];

describe('the gateway OpenAPI document', () => {
  const document = gatewayOpenApiDocument();

  it('is sound: references resolve, examples pass their zod schemas, path parameters match', () => {
    expect(checkOpenApiDocument(gatewayApi, document)).toEqual([]);
  });

  it('describes every route the gateway serves, and no route it does not', () => {
    expect(served.length).toBeGreaterThan(10);
    expect(undocumentedRoutes(document, served)).toEqual([]);
    expect(unservedOperations(document, served)).toEqual([]);
  });

  it('offers a body and an answer for every task in the serve table, with the first task leading', () => {
    const body = document.paths['/serve/{endpoint}']?.post?.requestBody as JsonObject;
    const content = (body.content as Record<string, { examples: Record<string, unknown> }>)[
      'application/json'
    ];
    expect(Object.keys(content?.examples ?? {})).toEqual(SERVE_TASKS);
    const request = document.components.schemas.ServeRequest as { anyOf: { title: string }[] };
    expect(request.anyOf.map((alternative) => alternative.title)).toEqual(SERVE_TASKS);
    const answer = document.components.schemas.ServeAnswer as { anyOf: { title: string }[] };
    expect(answer.anyOf.map((alternative) => alternative.title)).toEqual(SERVE_TASKS);
  });

  it("passes each task's example body through the gateway's own validation for that task", () => {
    const limits = { maxInputChars: 10_000, maxBatchItems: 64, truncation: true };
    for (const task of SERVE_TASKS) {
      const example = SERVE_TASK_SCHEMAS[task].example.request;
      // A generation body is not an encoder body: the generation path parses it.
      if (task === 'text-generation') expect(() => parseServeGenerationBody(example, limits)).not.toThrow();
      else if (task === 'image-classification') {
        const source = { contentType: 'application/json', body: example };
        expect(() => parseImageClassificationRequest(source, DEFAULT_IMAGE_LIMITS)).not.toThrow();
      } else if (task === 'image-to-text') {
        const source = { contentType: 'application/json', body: example };
        expect(() => parseImageToTextRequest(source, DEFAULT_IMAGE_LIMITS)).not.toThrow();
      } else expect(() => parseServeRequest(example, limits, { task })).not.toThrow();
    }
  });

  it('documents the raw image bodies of the image endpoints beside the JSON body', () => {
    for (const path of ['/serve/{endpoint}', '/serve/{endpoint}/{version}']) {
      const body = document.paths[path]?.post?.requestBody as { content: Record<string, unknown> };
      expect(Object.keys(body.content)).toEqual([
        'application/json',
        'image/jpeg',
        'image/png',
        'image/webp',
      ]);
    }
    expect(document.components.schemas.ServeImage).toMatchObject({ type: 'string', format: 'binary' });
  });

  it('documents the headers, async answer and error statuses of /serve', () => {
    const operation = document.paths['/serve/{endpoint}']?.post as {
      parameters: { name: string; in: string }[];
      responses: Record<string, { headers?: Record<string, unknown> }>;
    };
    expect(operation.parameters.map((p) => `${p.in}:${p.name}`)).toEqual([
      'path:endpoint',
      'header:x-request-id',
      'header:x-modelgate-route-key',
      'header:Prefer',
      'header:Accept',
    ]);
    expect(Object.keys(operation.responses)).toEqual(
      expect.arrayContaining(['200', '202', '400', '404', '413', '415', '422', '429', '503', '504']),
    );
    expect(Object.keys(operation.responses['200']?.headers ?? {})).toEqual(
      expect.arrayContaining(['x-request-id', 'x-modelgate-model', 'Server-Timing']),
    );
    expect(Object.keys(operation.responses['429']?.headers ?? {})).toEqual(['Retry-After']);
  });

  it('documents the streamed answers of the generation routes as text/event-stream beside their JSON', () => {
    const media = (path: string) =>
      Object.keys(
        (document.paths[path]?.post?.responses as Record<string, { content: object }>)['200']?.content ?? {},
      );
    expect(media('/serve/{endpoint}')).toEqual(['application/json', 'text/event-stream']);
    expect(media('/v1/completions')).toEqual(['application/json', 'text/event-stream']);
    expect(media('/v2/models/{model}/generate')).toEqual(['application/json']);
    expect(media('/v2/models/{model}/versions/{version}/generate_stream')).toEqual(['text/event-stream']);
    const events = document.components.schemas.ServeEvent as { anyOf: { title: string }[] };
    expect(events.anyOf.map((alternative) => alternative.title)).toEqual([
      'text-generation',
      'image-to-text',
    ]);
  });

  it('describes every field, at any depth, of every request body and 200 answer, so Swagger UI shows what each one means', () => {
    expect(undescribedFields(document)).toEqual([]);
  });

  it('writes JSON Schemas that accept every example, as a JSON Schema validator reads them', () => {
    expect(refusedOpenApiExamples(document)).toEqual([]);
  });
});
