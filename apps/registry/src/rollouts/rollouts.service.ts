import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type NodeHeartbeat } from '@modelgate/config-sync';
import {
  AGREEMENT_TASKS,
  DEFAULT_ROLLOUT_INTERVAL_SECONDS,
  DEFAULT_ROLLOUT_MAX_ERROR_RATE,
  DEFAULT_ROLLOUT_MIN_AGREEMENT,
  DEFAULT_ROLLOUT_MIN_REQUESTS,
  DEFAULT_ROLLOUT_SHADOW_PERCENT,
  ErrorCode,
  ModelgateError,
  type RolloutSummary,
  type RolloutView,
  type StartRolloutInput,
  measuresAgreement,
} from '@modelgate/contracts';
import {
  type RolloutTransition,
  abortRollout,
  pauseRollout,
  promoteRollout,
  resumeRollout,
  rolloutSource,
  startRollout,
  windowNumbers,
} from '@modelgate/routing';
import { DataSource } from 'typeorm';
import { loadRoutes } from '../endpoints/endpoint-view.js';
import { findEndpoint } from '../endpoints/endpoints.service.js';
import { RolloutEntity } from '../endpoints/rollout.entity.js';
import { findModelRow, findModelToRoute } from '../endpoints/routable-model.js';
import { type Actor } from '../outbox/actor.js';
import { ConfigChangesService } from '../outbox/config-changes.service.js';
import { candidateReadiness } from './candidate-readiness.js';
import { ROLLOUT_CLOCK, type RolloutClock } from './rollout-clock.js';
import { type HeartbeatSource, ROLLOUT_HEARTBEATS, ROLLOUTS_NEED_REDIS } from './rollout-heartbeats.js';
import { planOf, progressOf, toRolloutSummary, toRolloutView } from './rollout-record.js';
import {
  type RolloutWithEndpoint,
  findLatestRollout,
  listActiveRollouts,
  persistTransition,
} from './rollout-store.js';
import { parseBaseline, windowSince } from './rollout-window.js';
import { findActiveRollout } from './route-change-guard.js';

/** A hand-made move of a rollout in progress. */
type ManualMove = 'pause' | 'resume' | 'abort' | 'promote';

/**
 * The rollout API: start one (its first routes change commits with it), read where it is, and move
 * it by hand. The windows themselves are judged by the RolloutDriver.
 */
@Injectable()
export class RolloutsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: ConfigChangesService,
    @Inject(ROLLOUT_HEARTBEATS) private readonly heartbeats: HeartbeatSource,
    @Inject(ROLLOUT_CLOCK) private readonly clock: RolloutClock,
  ) {}

  /**
   * Starts moving `endpointName`'s traffic to `input.to`: PENDING, with the candidate routed as a
   * 0 % shadow so that workers load it. CONFLICT when a rollout is in progress, when the candidate
   * is the primary already or another canary takes traffic; UNAVAILABLE without Redis.
   */
  async start(actor: Actor, endpointName: string, input: StartRolloutInput): Promise<RolloutView> {
    if (!this.heartbeats.available) throw new ModelgateError(ErrorCode.UNAVAILABLE, ROLLOUTS_NEED_REDIS);
    const started = await this.changes.apply(actor, { configChange: true }, async (manager) => {
      const endpoint = await findEndpoint(manager, endpointName, true);
      const active = await findActiveRollout(manager, endpoint.id);
      if (active !== null) {
        throw new ModelgateError(
          ErrorCode.CONFLICT,
          `endpoint ${endpoint.name} already has a rollout to ${active.toModel} in progress (${active.state}); ` +
            `one at a time: see \`modelgate rollout status ${endpoint.name}\`, or end it with ` +
            `\`modelgate rollout abort ${endpoint.name}\` or \`promote\``,
        );
      }
      if (input.minAgreement !== undefined && !measuresAgreement(endpoint.task)) {
        throw new ModelgateError(
          ErrorCode.INVALID_ARGUMENT,
          `minAgreement: ${endpoint.task} answers are not compared row by row, so no agreement is measured ` +
            `(only for ${AGREEMENT_TASKS.join(', ')}); leave it out`,
          { field: 'minAgreement' },
        );
      }
      const candidate = await findModelToRoute(manager, endpoint, input.to, 'to');
      const previous = (await loadRoutes(manager, [endpoint.id])).get(endpoint.id) ?? [];
      const from = rolloutSource(previous, input.to);
      const now = this.clock();
      const row = manager.getRepository(RolloutEntity).create({
        id: randomUUID(),
        endpointId: endpoint.id,
        fromModelId: (await findModelRow(manager, from))?.id ?? null,
        toModelId: candidate.id,
        fromModel: from,
        toModel: input.to,
        steps: input.steps,
        intervalSeconds: input.intervalSeconds ?? DEFAULT_ROLLOUT_INTERVAL_SECONDS,
        thresholds: {
          maxErrorRate: input.maxErrorRate ?? DEFAULT_ROLLOUT_MAX_ERROR_RATE,
          ...(input.maxP99Ms === undefined ? {} : { maxP99Ms: input.maxP99Ms }),
          minAgreement: input.minAgreement ?? DEFAULT_ROLLOUT_MIN_AGREEMENT,
          minRequests: input.minRequests ?? DEFAULT_ROLLOUT_MIN_REQUESTS,
        },
        shadowFirstSeconds: input.shadowFirstSeconds ?? null,
        shadowPercent: input.shadowPercent ?? DEFAULT_ROLLOUT_SHADOW_PERCENT,
        state: 'PENDING',
        phase: 'warmup',
        stepIndex: -1,
        previousRoutes: previous,
        windowStartedAt: null,
        nextCheckAt: null,
        windowBaseline: null,
        candidateReadyAt: null,
        history: [],
        version: 0,
        createdAt: new Date(now),
        updatedAt: new Date(now),
      });
      await manager.getRepository(RolloutEntity).insert(row);
      const transition = startRollout(now);
      const routes = await persistTransition(manager, { row, endpoint }, transition, {
        actor: actor.name,
        at: new Date(now),
        heartbeats: [],
      });
      return {
        value: { row, endpoint },
        action: 'rollout.start',
        target: `endpoint:${endpoint.name}`,
        details: { from, to: input.to, steps: input.steps, routes },
      };
    });
    return this.view(started);
  }

  /** The endpoint's most recent rollout, with the running window's numbers so far. */
  async get(endpointName: string): Promise<RolloutView> {
    const manager = this.dataSource.manager;
    const endpoint = await findEndpoint(manager, endpointName);
    const row = await findLatestRollout(manager, endpoint.id);
    if (row === null) {
      throw new ModelgateError(
        ErrorCode.NOT_FOUND,
        `endpoint ${endpoint.name} has had no rollout; start one with ` +
          `\`modelgate rollout start ${endpoint.name} --to <name:version>\``,
      );
    }
    return this.view({ row, endpoint });
  }

  /** Every rollout in progress (for `/v1/status`). */
  async active(): Promise<RolloutSummary[]> {
    const active = await listActiveRollouts(this.dataSource.manager);
    return active.map(({ row, endpoint }) => toRolloutSummary(row, endpoint.name));
  }

  pause(actor: Actor, endpointName: string): Promise<RolloutView> {
    return this.move(actor, endpointName, 'pause');
  }

  resume(actor: Actor, endpointName: string): Promise<RolloutView> {
    return this.move(actor, endpointName, 'resume');
  }

  /** Ends the rollout with the previous routes back at once. */
  abort(actor: Actor, endpointName: string): Promise<RolloutView> {
    return this.move(actor, endpointName, 'abort');
  }

  /** Ends the rollout with the candidate as the only primary at once. */
  promote(actor: Actor, endpointName: string): Promise<RolloutView> {
    return this.move(actor, endpointName, 'promote');
  }

  private async move(actor: Actor, endpointName: string, move: ManualMove): Promise<RolloutView> {
    // A resumed window needs its baseline: the fleet's counters now, read before the transaction.
    const heartbeats = move === 'resume' ? await this.heartbeats.read() : [];
    const configChange = move === 'abort' || move === 'promote';
    const moved = await this.changes.apply(actor, { configChange }, async (manager) => {
      const endpoint = await findEndpoint(manager, endpointName, true);
      const row = await findActiveRollout(manager, endpoint.id, true);
      if (row === null) {
        throw new ModelgateError(
          ErrorCode.NOT_FOUND,
          `endpoint ${endpoint.name} has no rollout in progress to ${move}`,
        );
      }
      const now = this.clock();
      const transition = manualTransition(move, row, now);
      await persistTransition(manager, { row, endpoint }, transition, {
        actor: actor.name,
        at: new Date(now),
        heartbeats,
      });
      return {
        value: { row, endpoint },
        action: `rollout.${move}`,
        target: `endpoint:${endpoint.name}`,
        details: { to: row.toModel, state: row.state },
      };
    });
    return this.view(moved);
  }

  /** The view, with what only the fleet knows now; without it (Redis unreadable) those parts are null. */
  private async view(rollout: RolloutWithEndpoint): Promise<RolloutView> {
    const { row, endpoint } = rollout;
    let heartbeats: NodeHeartbeat[] | undefined;
    if (this.heartbeats.available && (row.state === 'RUNNING' || row.state === 'PENDING')) {
      heartbeats = await this.heartbeats.read().catch(() => undefined);
    }
    if (heartbeats === undefined)
      return toRolloutView(row, endpoint.name, { numbers: null, waitingFor: null });
    const readiness = candidateReadiness(heartbeats, row.toModel);
    const waitingFor =
      readiness.state === 'ready'
        ? `the candidate is READY: its first window starts once it has stayed so for a moment`
        : readiness.reason;
    const window = windowSince(
      parseBaseline(row.windowBaseline),
      heartbeats,
      endpoint.name,
      row.toModel,
      measuresAgreement(endpoint.task),
    );
    return toRolloutView(row, endpoint.name, { numbers: windowNumbers(window), waitingFor });
  }
}

function manualTransition(move: ManualMove, row: RolloutEntity, now: number): RolloutTransition {
  const progress = progressOf(row);
  switch (move) {
    case 'pause':
      return pauseRollout(progress);
    case 'resume':
      return resumeRollout(progress, planOf(row), now);
    case 'abort':
      return abortRollout(progress);
    case 'promote':
      return promoteRollout(progress);
  }
}
