// A `rollouts` row as the pure machine and the API see it: its plan, its progress, its history
// entries and its views. No I/O.
import {
  type RolloutHistoryEntry,
  type RolloutSummary,
  type RolloutThresholdsView,
  type RolloutView,
  type RolloutWindowNumbersView,
} from '@modelgate/contracts';
import {
  type RolloutPlan,
  type RolloutProgress,
  type RolloutThresholds,
  type RolloutTransition,
  candidatePercent,
} from '@modelgate/routing';
import { type RolloutEntity } from '../endpoints/rollout.entity.js';

/** The thresholds as stored (maxP99Ms absent when not checked). */
export function thresholdsView(row: RolloutEntity): RolloutThresholdsView {
  const stored = row.thresholds;
  return {
    maxErrorRate: stored.maxErrorRate,
    ...(typeof stored.maxP99Ms === 'number' ? { maxP99Ms: stored.maxP99Ms } : {}),
    minAgreement: stored.minAgreement,
    minRequests: stored.minRequests,
  };
}

/** The thresholds the decision takes: an unchecked p99 is an infinite limit. */
export function thresholdsOf(row: RolloutEntity): RolloutThresholds {
  const view = thresholdsView(row);
  return { ...view, maxP99Ms: view.maxP99Ms ?? Number.POSITIVE_INFINITY };
}

export function planOf(row: RolloutEntity): RolloutPlan {
  return {
    steps: row.steps,
    intervalSeconds: row.intervalSeconds,
    ...(row.shadowFirstSeconds === null ? {} : { shadowFirstSeconds: row.shadowFirstSeconds }),
    thresholds: thresholdsOf(row),
  };
}

export function progressOf(row: RolloutEntity): RolloutProgress {
  return {
    state: row.state,
    phase: row.phase,
    stepIndex: row.stepIndex,
    windowStartedAtMs: row.windowStartedAt?.getTime() ?? null,
    nextCheckAtMs: row.nextCheckAt?.getTime() ?? null,
    candidateReadyAtMs: row.candidateReadyAt?.getTime() ?? null,
  };
}

/** Writes `progress` into the row's columns. */
export function assignProgress(row: RolloutEntity, progress: RolloutProgress): void {
  row.state = progress.state;
  row.phase = progress.phase;
  row.stepIndex = progress.stepIndex;
  row.windowStartedAt = toDate(progress.windowStartedAtMs);
  row.nextCheckAt = toDate(progress.nextCheckAtMs);
  row.candidateReadyAt = toDate(progress.candidateReadyAtMs);
}

/** Most entries a history keeps: the oldest are dropped past it (holds fold into one entry anyway). */
const MAX_HISTORY = 500;

/**
 * The history with `transition`'s event appended (nothing when it has none). A hold right after a
 * hold at the same step folds into it, counting the times, so a long hold is one line.
 */
export function appendHistory(
  history: readonly RolloutHistoryEntry[],
  transition: RolloutTransition,
  plan: RolloutPlan,
  context: { at: Date; actor: string; window?: RolloutWindowNumbersView; note?: string },
): RolloutHistoryEntry[] {
  const event = transition.event;
  if (event === undefined) return [...history];
  const { progress } = transition;
  const entry: RolloutHistoryEntry = {
    at: context.at.toISOString(),
    event: event.kind,
    actor: context.actor,
    state: progress.state,
    phase: progress.phase,
    percent: candidatePercent(plan, progress),
    reason: context.note === undefined ? event.reason : `${event.reason} (${context.note})`,
    ...(context.window === undefined ? {} : { window: context.window }),
  };
  const last = history.at(-1);
  if (
    entry.event === 'hold' &&
    last?.event === 'hold' &&
    last.phase === entry.phase &&
    last.percent === entry.percent
  ) {
    return [...history.slice(0, -1), { ...entry, times: (last.times ?? 1) + 1 }];
  }
  return [...history, entry].slice(-MAX_HISTORY);
}

/** The API view; `live` carries what only the fleet knows now (the running window, what warm-up waits for). */
export function toRolloutView(
  row: RolloutEntity,
  endpoint: string,
  live: { numbers: RolloutWindowNumbersView | null; waitingFor: string | null },
): RolloutView {
  const progress = progressOf(row);
  const windowRuns = row.state === 'RUNNING' && row.windowStartedAt !== null && row.nextCheckAt !== null;
  return {
    id: row.id,
    endpoint,
    from: row.fromModel,
    to: row.toModel,
    state: row.state,
    phase: row.phase,
    percent: candidatePercent(planOf(row), progress),
    stepIndex: row.stepIndex,
    steps: row.steps,
    intervalSeconds: row.intervalSeconds,
    shadowFirstSeconds: row.shadowFirstSeconds,
    shadowPercent: row.shadowPercent,
    thresholds: thresholdsView(row),
    window: windowRuns
      ? {
          startedAt: row.windowStartedAt!.toISOString(),
          endsAt: row.nextCheckAt!.toISOString(),
          numbers: live.numbers,
        }
      : null,
    waitingFor: row.state === 'PENDING' ? live.waitingFor : null,
    previousRoutes: row.previousRoutes,
    history: row.history,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** A rollout in progress as `/v1/status` lists it. */
export function toRolloutSummary(row: RolloutEntity, endpoint: string): RolloutSummary {
  return {
    endpoint,
    from: row.fromModel,
    to: row.toModel,
    state: row.state,
    phase: row.phase,
    percent: candidatePercent(planOf(row), progressOf(row)),
    nextCheckAt: row.state === 'RUNNING' ? (row.nextCheckAt?.toISOString() ?? null) : null,
  };
}

function toDate(ms: number | null): Date | null {
  return ms === null ? null : new Date(ms);
}
