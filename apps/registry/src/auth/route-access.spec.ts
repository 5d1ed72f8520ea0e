import 'reflect-metadata';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { REGISTRY_CONTROLLERS } from '../registry.controllers.js';
import { ROUTE_ACCESS, type RouteAccess } from './access.decorator.js';

interface RouteInfo {
  route: string;
  method: RequestMethod;
  access: RouteAccess | undefined;
}

/** Every route Nest will register for the registry's controllers, with its access rule. */
function routeTable(): RouteInfo[] {
  const scanner = new MetadataScanner();
  return REGISTRY_CONTROLLERS.flatMap((controller) => {
    const base = Reflect.getMetadata(PATH_METADATA, controller) as string;
    const prototype = controller.prototype as unknown as Record<string, unknown>;
    return scanner.getAllMethodNames(prototype).flatMap((name): RouteInfo[] => {
      const handler = prototype[name] as object;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) return [];
      const path = Reflect.getMetadata(PATH_METADATA, handler) as string;
      return [
        {
          route: `${RequestMethod[method]} /${base}/${path}`.replace(/\/+$/, '').replace(/\/\//g, '/'),
          method,
          access:
            (Reflect.getMetadata(ROUTE_ACCESS, handler) as RouteAccess | undefined) ??
            (Reflect.getMetadata(ROUTE_ACCESS, controller) as RouteAccess | undefined),
        },
      ];
    });
  });
}

const MUTATING = new Set([RequestMethod.POST, RequestMethod.PUT, RequestMethod.PATCH, RequestMethod.DELETE]);

describe('route access rules', () => {
  const routes = routeTable();

  it('finds the routes of every controller', () => {
    expect(routes.length).toBeGreaterThanOrEqual(18);
    expect(routes.map((r) => r.route)).toContain('PUT /v1/endpoints/:name/routes');
  });

  it('gives every route an access rule (the guard refuses routes without one)', () => {
    expect(routes.filter((r) => r.access === undefined).map((r) => r.route)).toEqual([]);
  });

  it('requires an admin token on every POST, PUT, PATCH and DELETE route but the node reports', () => {
    const open = routes
      .filter((r) => MUTATING.has(r.method))
      .filter((r) => r.access?.kind !== 'token' || r.access.role !== 'admin')
      .map((r) => `${r.route} ${r.access?.kind === 'token' ? r.access.role : 'public'}`);
    // Nodes hold a viewer token; their heartbeats change what GET /v1/status shows, nothing that routes.
    expect(open.sort()).toEqual(['DELETE /v1/nodes/:role/:id viewer', 'POST /v1/nodes/heartbeat viewer']);
  });

  it('leaves only health probes, metrics and the version public', () => {
    const publicRoutes = routes.filter((r) => r.access?.kind === 'public').map((r) => r.route);
    expect(publicRoutes.sort()).toEqual([
      'GET /health/live',
      'GET /health/ready',
      'GET /metrics',
      'GET /v1/version',
    ]);
  });
});
