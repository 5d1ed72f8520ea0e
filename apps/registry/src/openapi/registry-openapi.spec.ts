import 'reflect-metadata';
import {
  type ApiMethod,
  checkOpenApiDocument,
  toOpenApiPath,
  undescribedFields,
  undocumentedRoutes,
  unservedOperations,
} from '@modelgate/contracts';
import { nestControllerRoutes, refusedOpenApiExamples } from '@modelgate/testing';
import { describe, expect, it } from 'vitest';
import { ROUTE_ACCESS, type RouteAccess } from '../auth/access.decorator.js';
import { REGISTRY_CONTROLLERS } from '../registry.controllers.js';
import { registryApi, registryOpenApiDocument } from './registry-openapi.js';

const served = nestControllerRoutes(REGISTRY_CONTROLLERS);

/** What a route's decorators say about who may call it: public, viewer or admin. */
function decoratedAccess(route: (typeof served)[number]): string {
  const access = (Reflect.getMetadata(ROUTE_ACCESS, route.handler) ??
    Reflect.getMetadata(ROUTE_ACCESS, route.controller)) as RouteAccess | undefined;
  return access === undefined ? 'none' : access.kind === 'public' ? 'public' : access.role;
}

describe('the registry OpenAPI document', () => {
  const document = registryOpenApiDocument();

  it('is sound: references resolve, examples pass their zod schemas, path parameters match', () => {
    expect(checkOpenApiDocument(registryApi, document)).toEqual([]);
  });

  it('describes every route the registry serves, and no route it does not', () => {
    expect(served.length).toBeGreaterThanOrEqual(30);
    expect(undocumentedRoutes(document, served)).toEqual([]);
    expect(unservedOperations(document, served)).toEqual([]);
  });

  it('documents for each route the access its decorators enforce: no token, or a bearer token of a role', () => {
    const mismatches = served.flatMap((route) => {
      const key = `${route.method} ${toOpenApiPath(route.path)}`;
      const operation = document.paths[toOpenApiPath(route.path)]?.[
        route.method.toLowerCase() as ApiMethod
      ] as { security?: unknown[]; responses: Record<string, unknown>; description: string } | undefined;
      const enforced = decoratedAccess(route);
      const documented =
        operation === undefined
          ? 'undocumented'
          : JSON.stringify(operation.security) === '[]'
            ? 'public'
            : '403' in operation.responses
              ? 'admin'
              : 'viewer';
      return documented === enforced ? [] : [`${key}: documented ${documented}, enforced ${enforced}`];
    });
    expect(mismatches).toEqual([]);
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
    const open = operations.filter((op) => JSON.stringify(op.security) === '[]').map((op) => op.operationId);
    expect(open.sort()).toEqual([
      'HealthController_live',
      'HealthController_ready',
      'MetricsController_scrape',
      'VersionController_get',
    ]);
    expect(document.security).toEqual([{ bearer: [] }]);
    expect(document.components.securitySchemes?.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('answers every token route 401 (and admin routes 403) in the error schema', () => {
    for (const route of registryApi.routes.filter((r) => r.security?.length !== 0)) {
      expect(Object.keys(route.responses), route.operationId).toContain('401');
    }
    const error = document.components.schemas.Error as { properties: { error: { required: string[] } } };
    expect(error.properties.error.required).toEqual(['code', 'message', 'request_id']);
  });

  it('describes every field, at any depth, of every request body and 200 answer, so Swagger UI shows what each one means', () => {
    expect(undescribedFields(document)).toEqual([]);
  });

  it('writes JSON Schemas that accept every example, as a JSON Schema validator reads them', () => {
    expect(refusedOpenApiExamples(document)).toEqual([]);
  });
});
