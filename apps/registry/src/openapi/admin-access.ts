// Pieces every registry route's documentation shares: who may call it, and its error answers.
import {
  type ApiBody,
  type ApiResponse,
  type ApiRoute,
  type ErrorCode,
  apiErrorBodySchema,
  errorResponses,
  resourceNameSchema,
} from '@modelgate/contracts';
import { z } from 'zod';
import { ROUTE_ACCESS, type RouteAccess } from '../auth/access.decorator.js';

/** A registry route's documentation; who may call it is read from its controller's decorators. */
export type RegistryRoute = Omit<ApiRoute, 'security'>;

const errorBody: Omit<ApiBody, 'examples'> = { name: 'Error', schema: apiErrorBodySchema };

function errorExample(code: ErrorCode): unknown {
  return {
    error: {
      code,
      message: `what went wrong (${code})`,
      request_id: 'b3c1f0a2e4d5',
      ...(code === 'INVALID_ARGUMENT'
        ? {
            field: 'name',
            issues: [{ path: 'name', message: 'must be lowercase letters, digits and dashes' }],
          }
        : {}),
    },
  };
}

/**
 * Error answers of a route: `statuses`, plus 500 (INTERNAL), which any route may answer, and 503
 * (the database unreachable). The 401 and 403 of a route that needs a token come from its access (toApiRoute).
 */
export function registryErrors(statuses: readonly number[]): Record<string, ApiResponse> {
  return errorResponses([...new Set([...statuses, 500, 503])], errorBody, errorExample);
}

/**
 * The access a route's `@PublicRoute()` / `@RequireRole()` decorator gives it, found through its
 * operationId (`<Controller>_<method>`) among `controllers`. Throws for an operation no controller
 * serves or a handler without the decorator (the AuthGuard refuses those).
 */
export function decoratedAccess(
  operationId: string,
  controllers: readonly (abstract new (...args: never[]) => unknown)[],
): RouteAccess {
  const [controllerName, method] = operationId.split('_');
  const controller = controllers.find((candidate) => candidate.name === controllerName);
  const handler =
    controller && method ? (controller.prototype as Record<string, unknown>)[method] : undefined;
  if (!controller || typeof handler !== 'function') {
    throw new Error(`operation ${operationId} names no controller handler`);
  }
  const access = (Reflect.getMetadata(ROUTE_ACCESS, handler) ??
    Reflect.getMetadata(ROUTE_ACCESS, controller)) as RouteAccess | undefined;
  if (!access) throw new Error(`${operationId} has neither @PublicRoute() nor @RequireRole()`);
  return access;
}

/**
 * An OpenAPI route from a registry route and the access its decorator enforces: the bearer token
 * it needs (also said in its description), and 401 (and 403 for admin routes) in the error schema.
 */
export function toApiRoute(route: RegistryRoute, access: RouteAccess): ApiRoute {
  const role = access.kind === 'public' ? undefined : access.role;
  const who =
    role === undefined
      ? 'No token needed.'
      : role === 'admin'
        ? 'Needs an admin token.'
        : 'Needs a token (viewer or admin).';
  const authStatuses = role === undefined ? [] : role === 'admin' ? [401, 403] : [401];
  return {
    ...route,
    description: route.description ? `${route.description}\n\n${who}` : who,
    security: role === undefined ? [] : ['bearer'],
    responses: { ...route.responses, ...errorResponses(authStatuses, errorBody, errorExample) },
  };
}

/** `{name}` in a path: an endpoint, model or token name. */
export const nameParams = z.object({ name: resourceNameSchema });
