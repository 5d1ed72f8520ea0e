// Which model serves a request to an endpoint (DESIGN §3.1, §3.3): a weighted draw over the
// primary and canary routes, or, with a sticky key, a stable slot in the same weights; shadow
// routes are returned apart for mirroring.
import { ErrorCode, ModelgateError, type Route } from '@modelgate/contracts';
import { murmur3 } from './sticky-hash.js';

/** Options of {@link pickRoute}. */
export interface PickRouteOptions {
  /** A client's sticky key (the endpoint's stickyHeader); the same key gets the same route while weights hold. */
  stickyKey?: string | undefined;
  /** Uniform draw in [0, 1) for requests without a sticky key. @defaultValue Math.random */
  random?: () => number;
}

/** The route that serves a request, and the shadow routes to mirror it to. */
export interface RouteChoice<R extends Route = Route> {
  /** The primary or canary route chosen. */
  route: R;
  /** Shadow routes with weight > 0, in model-id order. */
  shadows: R[];
}

const byModel = <R extends Route>(a: R, b: R): number => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0);

/**
 * The order weights are laid out in, independent of the list's order: the primary first, then
 * canaries by model id. A canary's slots sit at the end, so raising its weight only moves keys
 * from the primary to it: a sticky client that saw the canary keeps seeing it through a rollout.
 */
export function servingOrder<R extends Route>(routes: readonly R[]): R[] {
  const served = routes.filter((route) => route.role !== 'shadow' && route.weight > 0);
  return [
    ...served.filter((route) => route.role === 'primary').sort(byModel),
    ...served.filter((route) => route.role !== 'primary').sort(byModel),
  ];
}

/** The route whose cumulative weight range holds `slot` (0 <= slot < total weight). */
function routeAtSlot<R extends Route>(ordered: readonly R[], slot: number): R | undefined {
  let end = 0;
  for (const route of ordered) {
    end += route.weight;
    if (slot < end) return route;
  }
  return ordered.at(-1);
}

/**
 * Chooses the primary or canary route of a request by integer weight (weight 0 is never chosen):
 * a uniform draw, or for a sticky key `murmur3(key) mod total` mapped onto the weights in
 * {@link servingOrder}. Throws UNAVAILABLE when no route has weight > 0.
 */
export function pickRoute<R extends Route>(
  routes: readonly R[],
  options: PickRouteOptions = {},
): RouteChoice<R> {
  const ordered = servingOrder(routes);
  const total = ordered.reduce((sum, route) => sum + route.weight, 0);
  const shadows = routes.filter((route) => route.role === 'shadow' && route.weight > 0).sort(byModel);
  if (total === 0) {
    throw new ModelgateError(
      ErrorCode.UNAVAILABLE,
      'the endpoint has no primary or canary route with weight > 0',
    );
  }
  const { stickyKey } = options;
  const slot =
    stickyKey !== undefined && stickyKey !== ''
      ? murmur3(stickyKey) % total
      : Math.min(Math.floor((options.random ?? Math.random)() * total), total - 1);
  const route = routeAtSlot(ordered, Math.max(slot, 0));
  if (route === undefined) throw new ModelgateError(ErrorCode.INTERNAL, 'route weights are inconsistent');
  return { route, shadows };
}

/** Whether a shadow route mirrors this request: its weight is the percent of requests mirrored. */
export function shouldMirror(shadow: Route, random: () => number = Math.random): boolean {
  return random() * 100 < shadow.weight;
}
