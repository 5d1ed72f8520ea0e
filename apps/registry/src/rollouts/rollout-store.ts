// Reading and writing rollouts and the routes their steps put in place, inside the caller's
// transaction. Lock order everywhere: config_events (config changes) → endpoint row → rollout row.
import { type NodeHeartbeat } from '@modelgate/config-sync';
import {
  ACTIVE_ROLLOUT_STATES,
  ModelgateError,
  type Route,
  type RolloutWindowNumbersView,
} from '@modelgate/contracts';
import { type RolloutTransition, rolloutRoutes } from '@modelgate/routing';
import { type EntityManager, In } from 'typeorm';
import { EndpointEntity } from '../endpoints/endpoint.entity.js';
import { EndpointRouteEntity } from '../endpoints/endpoint-route.entity.js';
import { RolloutEntity } from '../endpoints/rollout.entity.js';
import { findModelRow, findModelToRoute } from '../endpoints/routable-model.js';
import { appendHistory, assignProgress, planOf } from './rollout-record.js';
import { takeBaseline } from './rollout-window.js';

/** A rollout and the endpoint it moves. */
export interface RolloutWithEndpoint {
  row: RolloutEntity;
  endpoint: EndpointEntity;
}

/** The endpoint's most recent rollout, in progress or not. */
export async function findLatestRollout(
  manager: EntityManager,
  endpointId: string,
): Promise<RolloutEntity | null> {
  return manager
    .getRepository(RolloutEntity)
    .findOne({ where: { endpointId }, order: { createdAt: 'DESC' } });
}

/** Every rollout in progress with its endpoint, by endpoint name. */
export async function listActiveRollouts(manager: EntityManager): Promise<RolloutWithEndpoint[]> {
  const rows = await manager
    .getRepository(RolloutEntity)
    .find({ where: { state: In([...ACTIVE_ROLLOUT_STATES]) } });
  if (rows.length === 0) return [];
  const endpoints = await manager
    .getRepository(EndpointEntity)
    .findBy({ id: In(rows.map((row) => row.endpointId)) });
  const byId = new Map(endpoints.map((endpoint) => [endpoint.id, endpoint]));
  return rows
    .flatMap((row) => {
      const endpoint = byId.get(row.endpointId);
      return endpoint ? [{ row, endpoint }] : [];
    })
    .sort((a, b) => (a.endpoint.name < b.endpoint.name ? -1 : a.endpoint.name > b.endpoint.name ? 1 : 0));
}

/** A route writeRoutes left out, and why. */
export interface RouteLeftOut {
  model: string;
  why: string;
}

/**
 * Replaces the endpoint's routes with `routes`. A route to a model that no longer exists is left
 * out. So is a route of weight 0 (a previous shadow or 0 % canary, which a rollout's steps take
 * out and its abort or rollback puts back) that the endpoint could not be given by hand now: its
 * model deleted and registered again (not READY, another task), or the endpoint's options changed
 * since (findModelToRoute). Routes that carry traffic stay routed throughout, so every change
 * meanwhile was checked against them. What was left out is returned so the history can say so.
 */
export async function writeRoutes(
  manager: EntityManager,
  endpoint: EndpointEntity,
  routes: readonly Route[],
): Promise<RouteLeftOut[]> {
  const kept: { route: Route; modelId: string }[] = [];
  const leftOut: RouteLeftOut[] = [];
  for (const route of routes) {
    const model = await findModelRow(manager, route.model);
    if (model === null) {
      leftOut.push({ model: route.model, why: 'deleted' });
      continue;
    }
    if (route.weight === 0) {
      const why = await routeRefusal(manager, endpoint, route.model);
      if (why !== undefined) {
        leftOut.push({ model: route.model, why });
        continue;
      }
    }
    kept.push({ route, modelId: model.id });
  }
  const endpointId = endpoint.id;
  const repository = manager.getRepository(EndpointRouteEntity);
  await repository.delete({ endpointId });
  await repository.insert(
    kept.map(({ route, modelId }, position) => ({
      endpointId,
      modelId,
      weight: route.weight,
      role: route.role,
      position,
    })),
  );
  await manager.getRepository(EndpointEntity).update({ id: endpointId }, { updatedAt: () => 'now()' });
  return leftOut;
}

/** Why setting a route from `endpoint` to `modelId` by hand would be refused now, or undefined. */
async function routeRefusal(
  manager: EntityManager,
  endpoint: EndpointEntity,
  modelId: string,
): Promise<string | undefined> {
  try {
    await findModelToRoute(manager, endpoint, modelId, 'route');
    return undefined;
  } catch (error) {
    if (!(error instanceof ModelgateError)) throw error;
    return error.message.replace(/^route: /, '');
  }
}

/** What a transition's record needs beside the transition. */
export interface TransitionContext {
  actor: string;
  at: Date;
  /** The fleet now: a new window's baseline is taken from it. */
  heartbeats: readonly NodeHeartbeat[];
  /** The judged window's numbers, for the history. */
  window?: RolloutWindowNumbersView;
}

/**
 * Applies `transition` to the locked `row` of `endpoint`: the routes it puts in place, a new
 * baseline when a window begins, the history entry, the progress; bumps the version. Returns the
 * routes now in place when they changed.
 */
export async function persistTransition(
  manager: EntityManager,
  { row, endpoint }: RolloutWithEndpoint,
  transition: RolloutTransition,
  context: TransitionContext,
): Promise<Route[] | undefined> {
  const plan = planOf(row);
  let routes: Route[] | undefined;
  let note: string | undefined;
  if (transition.routes !== undefined) {
    routes = rolloutRoutes(row.previousRoutes, row.toModel, transition.routes, row.shadowPercent);
    const leftOut = await writeRoutes(manager, endpoint, routes);
    if (leftOut.length > 0) {
      note = `routes left out: ${leftOut.map(({ model, why }) => `${model} (${why})`).join('; ')}`;
      routes = routes.filter((route) => !leftOut.some(({ model }) => model === route.model));
    }
  }
  if (transition.newWindow) row.windowBaseline = takeBaseline(context.heartbeats, endpoint.name, row.toModel);
  else if (transition.progress.windowStartedAtMs === null) row.windowBaseline = null;
  row.history = appendHistory(row.history, transition, plan, {
    at: context.at,
    actor: context.actor,
    ...(context.window === undefined ? {} : { window: context.window }),
    ...(note === undefined ? {} : { note }),
  });
  assignProgress(row, transition.progress);
  row.version += 1;
  row.updatedAt = context.at;
  await manager.getRepository(RolloutEntity).update(
    { id: row.id },
    {
      state: row.state,
      phase: row.phase,
      stepIndex: row.stepIndex,
      windowStartedAt: row.windowStartedAt,
      nextCheckAt: row.nextCheckAt,
      candidateReadyAt: row.candidateReadyAt,
      windowBaseline: row.windowBaseline,
      history: row.history,
      version: row.version,
      updatedAt: () => 'now()',
    },
  );
  return routes;
}
