/**
 * Endpoints kept in files: the `kind: Endpoint` document `modelgate get endpoint NAME` writes and
 * `modelgate apply -f` reads, and the plan that brings the registry to it (create, change the keys
 * that differ, replace the routes) without touching what already matches. A key the file leaves
 * out keeps the registry's value; `null` puts one back to its default. Pure: no I/O.
 */
import {
  type CreateEndpointRequest,
  type EndpointView,
  type RouteRequest,
  type UpdateEndpointRequest,
  modelTaskSchema,
  resourceNameSchema,
  routeRequestSchema,
  updateEndpointSchema,
} from '@modelgate/contracts';
import { z } from 'zod';
import { UsageError } from '../cli-errors.js';

const options = updateEndpointSchema.shape;

/** One `kind: Endpoint` document. */
export const endpointManifestSchema = z.strictObject({
  kind: z.literal('Endpoint'),
  name: resourceNameSchema,
  task: modelTaskSchema,
  routes: z.array(routeRequestSchema).min(1, 'must hold at least one route'),
  preprocessing: options.preprocessing,
  postprocessing: options.postprocessing,
  stickyHeader: options.stickyHeader,
  timeoutMs: options.timeoutMs,
  generation: options.generation,
});

/** An endpoint as a file holds it. */
export type EndpointManifest = z.infer<typeof endpointManifestSchema>;

/** The document of `view`: what `get endpoint` prints, and `apply` reads back as "no change". */
export function endpointManifest(view: EndpointView): EndpointManifest {
  return {
    kind: 'Endpoint',
    name: view.name,
    task: view.task,
    routes: view.routes.map(({ model, weight, role }) => ({ model, weight, role })),
    preprocessing: { ...view.preprocessing },
    postprocessing: { ...view.postprocessing },
    stickyHeader: view.stickyHeader,
    timeoutMs: view.timeoutMs,
    generation: { ...view.generation },
  };
}

/** What applying one endpoint document does. */
export interface EndpointPlan {
  name: string;
  action: 'create' | 'update' | 'unchanged';
  /** create: the endpoint, with the primary route's model at 100 %. */
  create?: CreateEndpointRequest;
  /** update: the keys that differ. */
  update?: UpdateEndpointRequest;
  /** The whole route list, when it differs from what create or the registry has. */
  routes?: RouteRequest[];
  /** One line per difference, `preprocessing.maxTokens: 128 → 256`. */
  changes: string[];
}

const show = (value: unknown): string =>
  value === undefined || value === null ? 'default' : JSON.stringify(value);

/** The keys of `wanted` (one options section) whose value differs from `current`'s; null = unset. */
function sectionChanges(
  section: string,
  wanted: Record<string, unknown> | undefined,
  current: Record<string, unknown>,
  changes: string[],
): Record<string, unknown> | undefined {
  if (wanted === undefined) return undefined;
  const differing: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(wanted)) {
    if ((value ?? null) === (current[key] ?? null)) continue;
    differing[key] = value;
    changes.push(`${section}.${key}: ${show(current[key])} → ${show(value)}`);
  }
  return Object.keys(differing).length === 0 ? undefined : differing;
}

/** `sst2:1 90% primary, sst2:2 10% canary`; a role the file leaves out is the registry's choice. */
function describeRoutes(routes: readonly RouteRequest[]): string {
  return routes
    .map((route) => `${route.model} ${route.weight}%${route.role ? ` ${route.role}` : ''}`)
    .join(', ');
}

/** Whether `current` already is `wanted` (in order; a role the file leaves out matches any). */
function sameRoutes(wanted: readonly RouteRequest[], current: readonly RouteRequest[]): boolean {
  return (
    wanted.length === current.length &&
    wanted.every((route, i) => {
      const other = current[i];
      return (
        other !== undefined &&
        route.model === other.model &&
        route.weight === other.weight &&
        (route.role === undefined || route.role === other.role)
      );
    })
  );
}

/** Drops the nulls of a section (on create, null and absent both mean the default). */
function withoutNulls(section: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (section === undefined) return undefined;
  const kept = Object.fromEntries(Object.entries(section).filter(([, value]) => value !== null));
  return Object.keys(kept).length === 0 ? undefined : kept;
}

function planCreate(wanted: EndpointManifest): EndpointPlan {
  const primary =
    wanted.routes.find((route) => route.role === 'primary') ??
    [...wanted.routes].sort((a, b) => b.weight - a.weight)[0];
  const model = primary?.model ?? '';
  const sections = {
    preprocessing: withoutNulls(wanted.preprocessing),
    postprocessing: withoutNulls(wanted.postprocessing),
    generation: withoutNulls(wanted.generation),
  };
  const create = {
    name: wanted.name,
    task: wanted.task,
    model,
    ...Object.fromEntries(Object.entries(sections).filter(([, value]) => value !== undefined)),
    ...(wanted.stickyHeader === undefined || wanted.stickyHeader === null
      ? {}
      : { stickyHeader: wanted.stickyHeader }),
    ...(wanted.timeoutMs === undefined || wanted.timeoutMs === null ? {} : { timeoutMs: wanted.timeoutMs }),
  } as CreateEndpointRequest;
  const single = sameRoutes(wanted.routes, [{ model, weight: 100, role: 'primary' }]);
  return {
    name: wanted.name,
    action: 'create',
    create,
    ...(single ? {} : { routes: wanted.routes }),
    changes: [`routes: ${describeRoutes(wanted.routes)}`],
  };
}

/** The plan that makes the registry's endpoint (`current`, absent when none) the file's. */
export function planEndpoint(wanted: EndpointManifest, current: EndpointView | undefined): EndpointPlan {
  if (current === undefined) return planCreate(wanted);
  if (current.task !== wanted.task) {
    throw new UsageError(
      `endpoint ${wanted.name}: task ${wanted.task} in the file, ${current.task} in the registry; a task cannot change (remove the endpoint first)`,
    );
  }
  const changes: string[] = [];
  const preprocessing = sectionChanges('preprocessing', wanted.preprocessing, current.preprocessing, changes);
  const postprocessing = sectionChanges(
    'postprocessing',
    wanted.postprocessing,
    current.postprocessing,
    changes,
  );
  const generation = sectionChanges('generation', wanted.generation, current.generation, changes);
  const update: Record<string, unknown> = {
    ...(preprocessing === undefined ? {} : { preprocessing }),
    ...(postprocessing === undefined ? {} : { postprocessing }),
    ...(generation === undefined ? {} : { generation }),
  };
  for (const key of ['stickyHeader', 'timeoutMs'] as const) {
    const value = wanted[key];
    if (value === undefined || value === current[key]) continue;
    update[key] = value;
    changes.push(`${key}: ${show(current[key])} → ${show(value)}`);
  }
  const routesDiffer = !sameRoutes(wanted.routes, current.routes);
  if (routesDiffer)
    changes.push(`routes: ${describeRoutes(current.routes)} → ${describeRoutes(wanted.routes)}`);
  return {
    name: wanted.name,
    action: changes.length === 0 ? 'unchanged' : 'update',
    ...(Object.keys(update).length === 0 ? {} : { update: update }),
    ...(routesDiffer ? { routes: wanted.routes } : {}),
    changes,
  };
}
