// The admin API's routes read a query string only where their description declares one
// (`GET /v1/models?name=`). Anywhere else a query was accepted and ignored: `GET
// /v1/endpoints?name=x` listed every endpoint. It is refused instead, naming the parameters.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type FastifyInstance } from 'fastify';
import { type RegistryRoute } from '../openapi/admin-access.js';
import { toApiErrorResponse } from './api-error.js';

/** `METHOD /path` (Fastify's `:param` spelling) of the routes that declare a query. */
export function routesTakingQuery(
  routes: readonly Pick<RegistryRoute, 'method' | 'path' | 'query'>[],
): Set<string> {
  return new Set(
    routes
      .filter((route) => route.query !== undefined)
      .map((route) => `${route.method.toUpperCase()} ${route.path.replace(/\{([^}]+)\}/g, ':$1')}`),
  );
}

/** Refuses a query string on an admin route (`/v1/...`) that declares none, before its handler runs. */
export function installQueryCheck(fastify: FastifyInstance, routes: readonly RegistryRoute[]): void {
  const takingQuery = routesTakingQuery(routes);
  fastify.addHook('preValidation', (request, reply, done) => {
    const url = request.routeOptions.url ?? '';
    const query = request.query as Record<string, unknown> | undefined;
    const names = Object.keys(query ?? {});
    if (!url.startsWith('/v1/') || names.length === 0 || takingQuery.has(`${request.method} ${url}`)) {
      done();
      return;
    }
    const error = new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `${request.method} ${url} takes no query parameters; leave out ${names.map((name) => `'${name}'`).join(', ')}`,
      { field: names[0] as string },
    );
    const response = toApiErrorResponse(error, request.id);
    void reply.status(response.status).headers(response.headers).send(response.body);
  });
}
