/**
 * Rollouts kept in files: a `kind: Rollout` document says an endpoint should move to a model
 * version (POST /v1/endpoints/:name/rollouts's body with `kind` and `endpoint`). Applying it starts
 * the rollout unless one to that version is in progress or the endpoint already sends it all its
 * traffic; a rollout in progress to another version is refused (abort it first). Pure: no I/O.
 */
import {
  type EndpointView,
  type RolloutView,
  type StartRolloutRequest,
  resourceNameSchema,
  startRolloutSchema,
} from '@modelgate/contracts';
import { UsageError } from '../cli-errors.js';
import { manifestProblems } from './manifest-issues.js';

/** One `kind: Rollout` document. */
export interface RolloutManifest {
  kind: 'Rollout';
  endpoint: string;
  request: StartRolloutRequest;
}

/** A `kind: Rollout` document, checked as the registry would check the start. */
export function readRolloutManifest(value: Record<string, unknown>, where: string): RolloutManifest {
  const { kind: _kind, endpoint, ...request } = value;
  const name = resourceNameSchema.safeParse(endpoint);
  if (!name.success)
    throw new UsageError(`${where}: endpoint: ${name.error.issues[0]?.message ?? 'is required'}`);
  const parsed = startRolloutSchema.safeParse(request);
  if (!parsed.success) throw new UsageError(`${where}: ${manifestProblems(parsed.error)}`);
  return { kind: 'Rollout', endpoint: name.data, request: request as StartRolloutRequest };
}

const IN_PROGRESS = new Set<RolloutView['state']>(['PENDING', 'RUNNING', 'PAUSED']);

/** What applying one rollout document does. */
export interface RolloutPlan {
  endpoint: string;
  action: 'create' | 'unchanged';
  changes: string[];
}

/** The plan, given the endpoint's latest rollout and the endpoint (undefined: none yet). */
export function planRollout(
  manifest: RolloutManifest,
  latest: RolloutView | undefined,
  endpoint: EndpointView | undefined,
): RolloutPlan {
  const { endpoint: name, request } = manifest;
  if (latest !== undefined && IN_PROGRESS.has(latest.state)) {
    if (latest.to === request.to) return { endpoint: name, action: 'unchanged', changes: [] };
    throw new UsageError(
      `endpoint ${name} has a rollout to ${latest.to} in progress (${latest.state}); ` +
        `abort it first (modelgate rollout abort ${name}) to roll out ${request.to}`,
    );
  }
  const done =
    endpoint?.routes.length === 1 &&
    endpoint.routes[0]?.model === request.to &&
    endpoint.routes[0].weight === 100;
  if (done) return { endpoint: name, action: 'unchanged', changes: [] };
  return { endpoint: name, action: 'create', changes: [`start a rollout of ${name} to ${request.to}`] };
}
