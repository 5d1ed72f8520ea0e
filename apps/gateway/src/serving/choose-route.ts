import { type EndpointSpec } from '@modelgate/contracts';
import { pickRoute, pinVersion, shouldMirror } from '@modelgate/routing';
import { type EndpointTable, type ServableModel, servableModel } from '../endpoints/endpoint-table.js';

/** Where one call of an endpoint goes: its model, the route role, and the shadows it mirrors to. */
export interface RouteChoice {
  model: ServableModel;
  /** primary, canary, or `pinned` for a call that names a version. */
  role: string;
  shadows: ServableModel[];
}

/**
 * The route a call of `endpoint` resolves to: the pinned `version` (bypassing routes), else a
 * weighted pick among the primary and canary routes (sticky on `stickyKey`), plus the shadows the
 * pick mirrors to. A shadow this gateway cannot serve (no tokenizer yet) is skipped, never the
 * client's problem.
 */
export function chooseRoute(
  table: EndpointTable,
  endpoint: EndpointSpec,
  call: { version?: string | undefined; stickyKey?: string | undefined },
): RouteChoice {
  if (call.version !== undefined) {
    const pinned = pinVersion(
      endpoint.routes,
      [...[...table.models.values()].map((m) => m.spec), ...table.unloaded.values()],
      call.version,
      `endpoint ${endpoint.name}`,
    );
    return { model: servableModel(table, pinned.id), role: 'pinned', shadows: [] };
  }
  const choice = pickRoute(endpoint.routes, { stickyKey: call.stickyKey });
  const shadows = choice.shadows
    .filter((shadow) => shouldMirror(shadow))
    .flatMap((shadow) => {
      const model = table.models.get(shadow.model);
      return model ? [model] : [];
    });
  return { model: servableModel(table, choice.route.model), role: choice.route.role, shadows };
}
