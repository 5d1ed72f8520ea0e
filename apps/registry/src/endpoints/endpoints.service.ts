import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  type CreateEndpointInput,
  type EndpointSpec,
  endpointSpecSchema,
  type EndpointView,
  ErrorCode,
  ModelgateError,
  type Route,
  type RouteRequest,
  safeParseWith,
  type UpdateEndpointInput,
} from '@modelgate/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { type Actor } from '../outbox/actor.js';
import { type ModelEntity } from '../models/model.entity.js';
import { ConfigChangesService } from '../outbox/config-changes.service.js';
import { refuseRouteChangeDuringRollout } from '../rollouts/route-change-guard.js';
import { EndpointEntity } from './endpoint.entity.js';
import { EndpointRouteEntity } from './endpoint-route.entity.js';
import { loadRoutes, toEndpointView } from './endpoint-view.js';
import {
  findModelRow,
  findModelToRoute,
  findRoutableModel,
  refuseOptionsRawModelIgnores,
  refusePoolingOfPooledModel,
  refuseTokensBeyondModel,
} from './routable-model.js';
import { planRoutes } from './route-plan.js';

/** Endpoints and their routes. Every change is a config change (new revision). */
@Injectable()
export class EndpointsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: ConfigChangesService,
  ) {}

  /** Creates an endpoint routing 100% to one READY, task-compatible model. */
  async create(actor: Actor, input: CreateEndpointInput): Promise<EndpointView> {
    return this.changes.apply(actor, { configChange: true }, async (manager) => {
      const repository = manager.getRepository(EndpointEntity);
      if (await repository.existsBy({ name: input.name })) {
        throw new ModelgateError(ErrorCode.CONFLICT, `endpoint '${input.name}' already exists`, {
          field: 'name',
        });
      }
      const model = await findRoutableModel(manager, input.model, input.task, 'model');
      refusePoolingOfPooledModel(input.postprocessing?.pooling, model, 'postprocessing.pooling');
      refuseTokensBeyondModel(input.preprocessing?.maxTokens, model, 'model');
      const routes: Route[] = [{ model: input.model, weight: 100, role: 'primary' }];
      const spec = checkSpec({
        name: input.name,
        task: input.task,
        routes,
        preprocessing: input.preprocessing,
        postprocessing: input.postprocessing,
        ...(input.stickyHeader === undefined ? {} : { stickyHeader: input.stickyHeader }),
        ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
        generation: input.generation,
      });
      refuseOptionsRawModelIgnores(spec, model, 'model');
      const row = repository.create({
        id: randomUUID(),
        name: spec.name,
        task: spec.task,
        preprocessing: spec.preprocessing,
        postprocessing: spec.postprocessing,
        stickyHeader: input.stickyHeader ?? null,
        timeoutMs: spec.timeoutMs ?? null,
        generation: spec.generation,
      });
      await repository.insert(row);
      await manager
        .getRepository(EndpointRouteEntity)
        .insert({ endpointId: row.id, modelId: model.id, weight: 100, role: 'primary', position: 0 });
      const saved = await repository.findOneByOrFail({ id: row.id });
      return {
        value: toEndpointView(saved, routes),
        action: 'endpoint.create',
        target: `endpoint:${input.name}`,
        details: { task: input.task, model: input.model },
      };
    });
  }

  /** Every endpoint, by name. */
  async list(): Promise<EndpointView[]> {
    const manager = this.dataSource.manager;
    const rows = await manager.getRepository(EndpointEntity).find({ order: { name: 'ASC' } });
    const routes = await loadRoutes(manager);
    return rows.map((row) => toEndpointView(row, routes.get(row.id) ?? []));
  }

  /** One endpoint; NOT_FOUND when unknown. */
  async get(name: string): Promise<EndpointView> {
    const manager = this.dataSource.manager;
    const row = await findEndpoint(manager, name);
    return toEndpointView(row, (await loadRoutes(manager, [row.id])).get(row.id) ?? []);
  }

  /** Changes limits and options; the merged endpoint must still be valid. */
  async update(actor: Actor, name: string, patch: UpdateEndpointInput): Promise<EndpointView> {
    return this.changes.apply(actor, { configChange: true }, async (manager) => {
      const row = await findEndpoint(manager, name, true);
      const routes = (await loadRoutes(manager, [row.id])).get(row.id) ?? [];
      const pooling = patch.postprocessing?.pooling;
      if (pooling !== undefined && pooling !== null) {
        for (const route of routes) {
          const model = await findModelRow(manager, route.model);
          if (model !== null) refusePoolingOfPooledModel(pooling, model, 'postprocessing.pooling');
        }
      }
      const stickyHeader = patch.stickyHeader === undefined ? row.stickyHeader : patch.stickyHeader;
      const timeoutMs = patch.timeoutMs === undefined ? row.timeoutMs : patch.timeoutMs;
      const spec = checkSpec({
        name: row.name,
        task: row.task,
        routes,
        preprocessing: withoutNulls({ ...row.preprocessing, ...patch.preprocessing }),
        postprocessing: withoutNulls({ ...row.postprocessing, ...patch.postprocessing }),
        ...(stickyHeader === null ? {} : { stickyHeader }),
        ...(timeoutMs === null ? {} : { timeoutMs }),
        generation: withoutNulls({ ...row.generation, ...patch.generation }),
      });
      // The routed models, read only when a check needs them: a new maxTokens, or a raw endpoint's options.
      const newMaxTokens =
        patch.preprocessing?.maxTokens !== undefined && patch.preprocessing.maxTokens !== null;
      for (const [index, route] of newMaxTokens || spec.task === 'raw' ? routes.entries() : []) {
        const model = await findModelRow(manager, route.model);
        if (model === null) continue;
        const field = `routes[${index}].model`;
        if (newMaxTokens) refuseTokensBeyondModel(spec.preprocessing.maxTokens, model, field);
        if (spec.task === 'raw') refuseOptionsRawModelIgnores(spec, model, field);
      }
      await manager.getRepository(EndpointEntity).update(
        { id: row.id },
        {
          preprocessing: spec.preprocessing,
          postprocessing: spec.postprocessing,
          stickyHeader,
          timeoutMs,
          generation: spec.generation,
          updatedAt: () => 'now()',
        },
      );
      const saved = await manager.getRepository(EndpointEntity).findOneByOrFail({ id: row.id });
      return {
        value: toEndpointView(saved, routes),
        action: 'endpoint.update',
        target: `endpoint:${name}`,
        details: { patch },
      };
    });
  }

  /** Deletes an endpoint and its routes. */
  async remove(actor: Actor, name: string): Promise<void> {
    await this.changes.apply(actor, { configChange: true }, async (manager) => {
      const row = await findEndpoint(manager, name, true);
      await manager.getRepository(EndpointEntity).delete({ id: row.id });
      return { value: undefined, action: 'endpoint.delete', target: `endpoint:${name}` };
    });
  }

  /** Replaces an endpoint's routes (a canary split); every model READY and task-compatible. */
  async setRoutes(actor: Actor, name: string, requested: readonly RouteRequest[]): Promise<EndpointView> {
    const routes = planRoutes(requested);
    return this.changes.apply(actor, { configChange: true }, async (manager) => {
      const row = await findEndpoint(manager, name, true);
      await refuseRouteChangeDuringRollout(manager, row);
      const models: ModelEntity[] = [];
      for (const [index, route] of routes.entries()) {
        const field = `routes[${index}].model`;
        models.push(await findModelToRoute(manager, row, route.model, field));
      }
      const routeRepository = manager.getRepository(EndpointRouteEntity);
      await routeRepository.delete({ endpointId: row.id });
      await routeRepository.insert(
        routes.map((route, position) => ({
          endpointId: row.id,
          modelId: models[position]!.id,
          weight: route.weight,
          role: route.role,
          position,
        })),
      );
      await manager.getRepository(EndpointEntity).update({ id: row.id }, { updatedAt: () => 'now()' });
      const saved = await manager.getRepository(EndpointEntity).findOneByOrFail({ id: row.id });
      return {
        value: toEndpointView(saved, routes),
        action: 'endpoint.routes.set',
        target: `endpoint:${name}`,
        details: { routes },
      };
    });
  }
}

/** The endpoint row named `name` (locked for update when `forUpdate`), or NOT_FOUND. */
export async function findEndpoint(
  manager: EntityManager,
  name: string,
  forUpdate = false,
): Promise<EndpointEntity> {
  const row = await manager.getRepository(EndpointEntity).findOne({
    where: { name },
    ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
  if (row === null) throw new ModelgateError(ErrorCode.NOT_FOUND, `endpoint '${name}' does not exist`);
  return row;
}

/** The endpoint as the snapshot will carry it, or INVALID_ARGUMENT naming each bad field. */
function checkSpec(candidate: Record<string, unknown>): EndpointSpec {
  const outcome = safeParseWith(endpointSpecSchema, candidate, 'endpoint');
  if (!outcome.success) throw outcome.error;
  return outcome.data;
}

function withoutNulls(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null));
}
