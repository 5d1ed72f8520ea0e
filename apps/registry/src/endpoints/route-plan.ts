import {
  type Route,
  type RouteRequest,
  ErrorCode,
  ModelgateError,
  type ValidationIssue,
  validationError,
} from '@modelgate/contracts';

/**
 * Turns requested routes into the routes to store, or throws INVALID_ARGUMENT saying what is
 * wrong. Roles left out are filled in: when no route is marked primary, the heaviest route
 * without a role (the first of equals) becomes primary; every other route without a role is a
 * canary. Then: at least one route, no model twice, weights of primary and canary routes sum
 * to exactly 100, exactly one primary. Shadow routes get mirrored traffic and do not count.
 */
export function planRoutes(requested: readonly RouteRequest[]): Route[] {
  if (requested.length === 0) {
    throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'routes: must list at least one route', {
      field: 'routes',
    });
  }
  const primaryIndex = requested.some((route) => route.role === 'primary')
    ? -1
    : heaviestWithoutRole(requested);
  const routes = requested.map((route, index): Route => ({
    model: route.model,
    weight: route.weight,
    role: route.role ?? (index === primaryIndex ? 'primary' : 'canary'),
  }));

  const issues: ValidationIssue[] = [];
  const firstIndex = new Map<string, number>();
  routes.forEach((route, index) => {
    const first = firstIndex.get(route.model);
    if (first === undefined) firstIndex.set(route.model, index);
    else
      issues.push({
        path: `routes[${index}].model`,
        message: `routes to ${route.model} twice (first at routes[${first}])`,
      });
  });
  const served = routes.filter((route) => route.role !== 'shadow');
  const total = served.reduce((sum, route) => sum + route.weight, 0);
  if (total !== 100) {
    const shares = served.map((route) => `${route.model}=${route.weight}`).join(' + ');
    issues.push({
      path: 'routes',
      message: `weights of primary and canary routes must sum to 100, got ${total} (${shares || 'no served routes'})`,
    });
  }
  const primaries = routes.filter((route) => route.role === 'primary').length;
  if (primaries !== 1) {
    issues.push({ path: 'routes', message: `must have exactly one primary route, got ${primaries}` });
  }
  if (issues.length > 0) throw validationError('routes', issues);
  return routes;
}

function heaviestWithoutRole(routes: readonly RouteRequest[]): number {
  let best = -1;
  routes.forEach((route, index) => {
    if (route.role !== undefined) return;
    if (best === -1 || route.weight > (routes[best]?.weight ?? -1)) best = index;
  });
  return best;
}
