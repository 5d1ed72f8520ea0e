import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
} from '@nestjs/common';
import { type NodeHeartbeat } from '@modelgate/config-sync';
import { type RolloutWindowNumbersView, measuresAgreement } from '@modelgate/contracts';
import { type Logger, modelLabels } from '@modelgate/observability';
import {
  type RolloutTransition,
  candidatePercent,
  checkWarmup,
  decideRolloutStep,
  endWindow,
  windowNumbers,
} from '@modelgate/routing';
import { DataSource, type EntityManager } from 'typeorm';
import { RegistryMetrics } from '../metrics/registry-metrics.js';
import { systemActor } from '../outbox/actor.js';
import { ConfigChangesService } from '../outbox/config-changes.service.js';
import { type RegistryConfig } from '../registry.config.js';
import { LOGGER, REGISTRY_CONFIG } from '../registry.tokens.js';
import { candidateReadiness } from './candidate-readiness.js';
import { CANDIDATE_SETTLE_MS, ROLLOUT_CLOCK, type RolloutClock } from './rollout-clock.js';
import { type HeartbeatSource, ROLLOUT_HEARTBEATS } from './rollout-heartbeats.js';
import { planOf, progressOf, thresholdsOf } from './rollout-record.js';
import { type RolloutWithEndpoint, listActiveRollouts, persistTransition } from './rollout-store.js';
import { parseBaseline, windowSince } from './rollout-window.js';

/** Thrown inside a transaction to undo it when another replica moved the rollout first. */
class Superseded extends Error {}

/**
 * Drives rollouts from Postgres: every REGISTRY_ROLLOUT_TICK_MS it loads the rollouts in
 * progress, and for each one due (warming up, or its window ended) reads the fleet's heartbeats,
 * decides (pure machine and decision) and commits the move — routes through the outbox like any
 * change. State lives only in Postgres, so a restarted registry carries on where it was; with
 * several replicas, the one that locks the endpoint row first (SKIP LOCKED) acts, and a move
 * decided on a version of the rollout that changed meanwhile is dropped.
 */
@Injectable()
export class RolloutDriver implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private readonly actor = systemActor('rollouts');

  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: ConfigChangesService,
    private readonly metrics: RegistryMetrics,
    @Inject(ROLLOUT_HEARTBEATS) private readonly heartbeats: HeartbeatSource,
    @Inject(ROLLOUT_CLOCK) private readonly clock: RolloutClock,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), this.config.REGISTRY_ROLLOUT_TICK_MS);
    this.timer.unref();
  }

  /** No new pass; the one running finishes. */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
  }

  /** Once the API has stopped too (RolloutsService reads heartbeats for its answers). */
  onApplicationShutdown(): void {
    this.heartbeats.close();
  }

  /** One pass over the rollouts in progress; a pass still running makes this one a no-op. */
  tick(): Promise<void> {
    this.ticking ??= this.pass()
      .catch((error: unknown) => this.logger.warn({ err: error }, 'rollout pass failed; retrying next tick'))
      .finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async pass(): Promise<void> {
    const active = await listActiveRollouts(this.dataSource.manager);
    this.metrics.rolloutPercent.reset();
    for (const { row, endpoint } of active) {
      const percent = candidatePercent(planOf(row), progressOf(row));
      this.metrics.rolloutPercent.set(
        { serving_endpoint: endpoint.name, ...modelLabels(row.toModel) },
        percent,
      );
    }
    const now = this.clock();
    const due = active.filter(
      ({ row }) =>
        (row.state === 'PENDING' || row.state === 'RUNNING') &&
        row.nextCheckAt !== null &&
        row.nextCheckAt.getTime() <= now,
    );
    if (due.length === 0 || !this.heartbeats.available) return;
    const heartbeats = await this.heartbeats.read();
    for (const rollout of due) {
      await this.advance(rollout, heartbeats).catch((error: unknown) =>
        this.logger.warn(
          { err: error, endpoint: rollout.endpoint.name },
          'rollout step failed; retrying next tick',
        ),
      );
    }
  }

  /** Decides one due rollout's move and commits it, unless another replica moved it first. */
  private async advance(rollout: RolloutWithEndpoint, heartbeats: readonly NodeHeartbeat[]): Promise<void> {
    const { row, endpoint } = rollout;
    const now = this.clock();
    let transition: RolloutTransition | undefined;
    let judged: { decision: string; numbers: RolloutWindowNumbersView } | undefined;
    if (row.state === 'PENDING') {
      const readiness = candidateReadiness(heartbeats, row.toModel);
      transition = checkWarmup(progressOf(row), planOf(row), readiness, now, CANDIDATE_SETTLE_MS);
    } else {
      const window = windowSince(
        parseBaseline(row.windowBaseline),
        heartbeats,
        endpoint.name,
        row.toModel,
        measuresAgreement(endpoint.task),
      );
      const verdict = decideRolloutStep(
        window,
        thresholdsOf(row),
        row.phase === 'shadow' ? 'shadow' : 'live',
      );
      judged = { decision: verdict.decision, numbers: windowNumbers(window) };
      transition = endWindow(progressOf(row), planOf(row), verdict, now);
    }
    if (transition === undefined) return;
    const move = transition;
    const context = {
      actor: this.actor.name,
      at: new Date(now),
      heartbeats,
      ...(judged === undefined ? {} : { window: judged.numbers }),
    };
    const commit = async (manager: EntityManager): Promise<boolean> => {
      if (!(await lockUnchanged(manager, rollout))) return false;
      await persistTransition(manager, rollout, move, context);
      return true;
    };
    let committed: boolean;
    if (move.routes === undefined) {
      committed = await this.dataSource.transaction(commit);
    } else {
      committed = await this.changes
        .apply(this.actor, { configChange: true }, async (manager) => {
          if (!(await commit(manager))) throw new Superseded();
          return {
            value: true,
            action: `rollout.${move.event?.kind ?? 'step'}`,
            target: `endpoint:${endpoint.name}`,
            details: { to: row.toModel, state: move.progress.state, reason: move.event?.reason },
          };
        })
        .catch((error: unknown) => {
          if (error instanceof Superseded) return false;
          throw error;
        });
    }
    if (committed && judged !== undefined) {
      this.metrics.rolloutDecisions.inc({ serving_endpoint: endpoint.name, decision: judged.decision });
    }
    if (committed && move.event !== undefined) {
      this.logger.info(
        { endpoint: endpoint.name, to: row.toModel, state: move.progress.state, event: move.event.kind },
        `rollout ${move.event.kind}: ${move.event.reason}`,
      );
    }
  }
}

/**
 * Locks the rollout's endpoint row (skipping it when another replica holds it) and then the
 * rollout row; true when both are held and the rollout is still the version the move was decided on.
 */
async function lockUnchanged(
  manager: EntityManager,
  { row, endpoint }: RolloutWithEndpoint,
): Promise<boolean> {
  const endpoints = await manager.query<{ id: string }[]>(
    'SELECT id FROM endpoints WHERE id = $1 FOR UPDATE SKIP LOCKED',
    [endpoint.id],
  );
  if (endpoints.length === 0) return false;
  const rollouts = await manager.query<{ version: number }[]>(
    'SELECT version FROM rollouts WHERE id = $1 FOR UPDATE',
    [row.id],
  );
  return rollouts[0]?.version === row.version;
}
