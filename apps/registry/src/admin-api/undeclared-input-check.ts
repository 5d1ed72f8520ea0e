// The admin API's routes read a query string only where their description declares one
// (`GET /v1/models?name=`), and a body only where they declare one. Anywhere else the input was
// accepted and ignored: `GET /v1/endpoints?name=x` listed every endpoint, and `DELETE
// /v1/endpoints/x` with `{"force": true}` deleted as without it. Both are refused instead,
// naming what to leave out, before the handler runs.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type FastifyInstance } from 'fastify';
import { type RegistryRoute } from '../openapi/admin-access.js';
import { toApiErrorResponse } from './api-error.js';

type DeclaredInputs = Pick<RegistryRoute, 'method' | 'path' | 'query' | 'body'>;

/** `METHOD /path` (Fastify's `:param` spelling) of the routes that declare `input`. */
function routesDeclaring(routes: readonly DeclaredInputs[], input: 'query' | 'body'): Set<string> {
  return new Set(
    routes
      .filter((route) => route[input] !== undefined)
      .map((route) => `${route.method.toUpperCase()} ${route.path.replace(/\{([^}]+)\}/g, ':$1')}`),
  );
}

/** `METHOD /path` of the routes that declare a query. */
export function routesTakingQuery(routes: readonly DeclaredInputs[]): Set<string> {
  return routesDeclaring(routes, 'query');
}

/** `METHOD /path` of the routes that declare a body. */
export function routesTakingBody(routes: readonly DeclaredInputs[]): Set<string> {
  return routesDeclaring(routes, 'body');
}

/** Whether a parsed body carries anything: none, an empty string and `{}` do not. */
export function carriesSomething(body: unknown): boolean {
  if (body === undefined || body === null || body === '') return false;
  if (typeof body === 'object' && !Array.isArray(body) && !Buffer.isBuffer(body))
    return Object.keys(body).length > 0;
  return true;
}

/** Why a call of `key` (`METHOD /path`) carries input its route does not read, or undefined. */
export function undeclaredInput(
  key: string,
  query: Record<string, unknown> | undefined,
  body: unknown,
  declared: { query: Set<string>; body: Set<string> },
): ModelgateError | undefined {
  const names = Object.keys(query ?? {});
  if (names.length > 0 && !declared.query.has(key)) {
    return new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `${key} takes no query parameters; leave out ${names.map((name) => `'${name}'`).join(', ')}`,
      { field: names[0] as string },
    );
  }
  if (carriesSomething(body) && !declared.body.has(key)) {
    return new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `${key} takes no body; send the request without one`,
    );
  }
  return undefined;
}

/** Refuses a query string or a body on an admin route (`/v1/...`) that declares none. */
export function installUndeclaredInputCheck(
  fastify: FastifyInstance,
  routes: readonly RegistryRoute[],
): void {
  const declared = { query: routesTakingQuery(routes), body: routesTakingBody(routes) };
  fastify.addHook('preValidation', (request, reply, done) => {
    const url = request.routeOptions.url ?? '';
    const error = url.startsWith('/v1/')
      ? undeclaredInput(
          // HEAD is answered by its GET route, and takes what that takes.
          `${request.method === 'HEAD' ? 'GET' : request.method} ${url}`,
          request.query as Record<string, unknown> | undefined,
          request.body,
          declared,
        )
      : undefined;
    if (error === undefined) {
      done();
      return;
    }
    const response = toApiErrorResponse(error, request.id);
    void reply.status(response.status).headers(response.headers).send(response.body);
  });
}
