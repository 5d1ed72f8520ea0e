// A progressive rollout as a state machine: which state and phase it is in, when its window
// ends, and which routes each transition puts in place. Pure: every function takes the time
// (`nowMs`) and returns the next progress; the registry persists it and applies the routes.
//
// Lifecycle: PENDING (warm-up: the candidate is routed as a 0 % shadow, so workers load it, until
// a worker reports it READY and it has stayed so for `settleMs`) → RUNNING (a shadow window of
// `shadowFirstSeconds` when asked for, then one window of `intervalSeconds` per live step) →
// COMPLETED when the step before 100 % promotes, or ROLLED_BACK when a check fails. PAUSED holds
// the current routes; ABORTED puts the previous routes back; a manual promote completes at once.
import {
  ACTIVE_ROLLOUT_STATES,
  ErrorCode,
  ModelgateError,
  type RolloutEventKind,
  type RolloutPhase,
  type RolloutState,
} from '@modelgate/contracts';
import { type RolloutThresholds, type RolloutVerdict } from './rollout-decision.js';

/** What a rollout was started with. */
export interface RolloutPlan {
  /** Live canary percentages, ascending, ending at 100. */
  readonly steps: readonly number[];
  /** Length of each live window, in seconds. */
  readonly intervalSeconds: number;
  /** Length of the shadow window before the first live step, in seconds; none when absent. */
  readonly shadowFirstSeconds?: number | undefined;
  readonly thresholds: RolloutThresholds;
}

/** Where a rollout is. Times are ms since the epoch. */
export interface RolloutProgress {
  readonly state: RolloutState;
  readonly phase: RolloutPhase;
  /** Index into the plan's steps in the live phase; -1 otherwise. */
  readonly stepIndex: number;
  /** When the current window began (its baseline was taken); null outside windows. */
  readonly windowStartedAtMs: number | null;
  /** When the registry next looks at it: the window's end, or now while warming up; null when paused or ended. */
  readonly nextCheckAtMs: number | null;
  /** Warm-up: since when a worker has reported the candidate READY; null otherwise. */
  readonly candidateReadyAtMs: number | null;
}

/** The routes a transition puts in place (the registry turns them into an endpoint's routes). */
export type RouteTarget =
  | { readonly kind: 'warmup' }
  | { readonly kind: 'shadow' }
  | { readonly kind: 'live'; readonly percent: number }
  | { readonly kind: 'final' }
  | { readonly kind: 'previous' };

/** One move of the machine. */
export interface RolloutTransition {
  readonly progress: RolloutProgress;
  /** The routes to put in place; absent when they stay as they are. */
  readonly routes?: RouteTarget;
  /** A new window begins: the registry takes a fresh baseline of the candidate's counters. */
  readonly newWindow: boolean;
  /** What to record in the history; absent for bookkeeping moves (warm-up progress). */
  readonly event?: { readonly kind: RolloutEventKind; readonly reason: string };
}

/** What the fleet says of the candidate while warming up. */
export type CandidateReadiness =
  | { readonly state: 'ready' }
  | { readonly state: 'waiting'; readonly reason: string }
  | { readonly state: 'failed'; readonly reason: string };

/** The live percentage of `progress` (the candidate's share of served traffic), 0 before the live phase. */
export function candidatePercent(plan: RolloutPlan, progress: RolloutProgress): number {
  if (progress.phase === 'live') return plan.steps[progress.stepIndex] ?? 0;
  if (progress.phase === 'done') return progress.state === 'COMPLETED' ? 100 : 0;
  return 0;
}

/** A new rollout: PENDING, the candidate routed as a 0 % shadow so that workers load it. */
export function startRollout(nowMs: number): RolloutTransition {
  return {
    progress: {
      state: 'PENDING',
      phase: 'warmup',
      stepIndex: -1,
      windowStartedAtMs: null,
      nextCheckAtMs: nowMs,
      candidateReadyAtMs: null,
    },
    routes: { kind: 'warmup' },
    newWindow: false,
    event: {
      kind: 'start',
      reason: 'warming up: the candidate is routed as a 0 % shadow so workers load it',
    },
  };
}

/**
 * Warm-up check (PENDING): READY for `settleMs` begins the first window (the shadow phase, or the
 * first live step); READY for less records since when; a load that failed everywhere rolls back;
 * otherwise nothing changes (undefined).
 */
export function checkWarmup(
  progress: RolloutProgress,
  plan: RolloutPlan,
  readiness: CandidateReadiness,
  nowMs: number,
  settleMs: number,
): RolloutTransition | undefined {
  requireState(progress, ['PENDING'], 'warm up');
  switch (readiness.state) {
    case 'failed':
      return rollBack(progress, `the candidate failed to load: ${readiness.reason}`);
    case 'waiting':
      return progress.candidateReadyAtMs === null
        ? undefined
        : { progress: { ...progress, candidateReadyAtMs: null }, newWindow: false };
    case 'ready': {
      const readyAt = progress.candidateReadyAtMs;
      if (readyAt === null) return { progress: { ...progress, candidateReadyAtMs: nowMs }, newWindow: false };
      if (nowMs - readyAt < settleMs) return undefined;
      const first = firstWindow(plan, nowMs);
      const what =
        first.progress.phase === 'shadow'
          ? `mirroring for ${plan.shadowFirstSeconds} s`
          : first.progress.phase === 'live'
            ? `${plan.steps[0]} % of traffic`
            : 'every request (the only step is 100 %)';
      return { ...first, event: { kind: 'ready', reason: `the candidate is READY on a worker: ${what}` } };
    }
  }
}

/**
 * The end of a RUNNING window, judged: promote moves to the next phase or step (the step before
 * 100 % completes the rollout), hold keeps the step and its baseline for one more window, rollback
 * puts the previous routes back.
 */
export function endWindow(
  progress: RolloutProgress,
  plan: RolloutPlan,
  verdict: RolloutVerdict,
  nowMs: number,
): RolloutTransition {
  requireState(progress, ['RUNNING'], 'judge a window of');
  switch (verdict.decision) {
    case 'rollback':
      return rollBack(progress, verdict.reason);
    case 'hold':
      return {
        progress: { ...progress, nextCheckAtMs: nowMs + windowSeconds(plan, progress.phase) * 1000 },
        newWindow: false,
        event: { kind: 'hold', reason: verdict.reason },
      };
    case 'promote': {
      const next =
        progress.phase === 'shadow'
          ? liveStep(plan, 0, nowMs)
          : liveStep(plan, progress.stepIndex + 1, nowMs);
      return { ...next, event: { kind: 'promote', reason: verdict.reason } };
    }
  }
}

/** PENDING or RUNNING → PAUSED: the routes stay; no window runs until resumed. */
export function pauseRollout(progress: RolloutProgress): RolloutTransition {
  requireState(progress, ['PENDING', 'RUNNING'], 'pause');
  return {
    progress: { ...progress, state: 'PAUSED', nextCheckAtMs: null, candidateReadyAtMs: null },
    newWindow: false,
    event: { kind: 'pause', reason: 'paused by hand' },
  };
}

/** PAUSED → PENDING (paused while warming up) or RUNNING with a fresh window at the same step. */
export function resumeRollout(
  progress: RolloutProgress,
  plan: RolloutPlan,
  nowMs: number,
): RolloutTransition {
  requireState(progress, ['PAUSED'], 'resume');
  const event = { kind: 'resume' as const, reason: 'resumed by hand: a new window begins' };
  if (progress.phase === 'warmup') {
    return {
      progress: { ...progress, state: 'PENDING', nextCheckAtMs: nowMs, candidateReadyAtMs: null },
      newWindow: false,
      event,
    };
  }
  return {
    progress: {
      ...progress,
      state: 'RUNNING',
      windowStartedAtMs: nowMs,
      nextCheckAtMs: nowMs + windowSeconds(plan, progress.phase) * 1000,
    },
    newWindow: true,
    event,
  };
}

/** Any rollout in progress → ABORTED, the previous routes back at once. */
export function abortRollout(progress: RolloutProgress): RolloutTransition {
  requireState(progress, ACTIVE_ROLLOUT_STATES, 'abort');
  return {
    progress: ended(progress, 'ABORTED'),
    routes: { kind: 'previous' },
    newWindow: false,
    event: { kind: 'abort', reason: 'aborted by hand: the previous routes are back' },
  };
}

/** Any rollout in progress → COMPLETED at once: the candidate becomes the only primary. */
export function promoteRollout(progress: RolloutProgress): RolloutTransition {
  requireState(progress, ACTIVE_ROLLOUT_STATES, 'promote');
  return {
    progress: ended(progress, 'COMPLETED'),
    routes: { kind: 'final' },
    newWindow: false,
    event: { kind: 'force-promote', reason: 'promoted by hand: the candidate serves every request' },
  };
}

/** The first window once warm: shadow when asked for, else the first live step. */
function firstWindow(plan: RolloutPlan, nowMs: number): RolloutTransition {
  if (plan.shadowFirstSeconds !== undefined) {
    return {
      progress: {
        state: 'RUNNING',
        phase: 'shadow',
        stepIndex: -1,
        windowStartedAtMs: nowMs,
        nextCheckAtMs: nowMs + plan.shadowFirstSeconds * 1000,
        candidateReadyAtMs: null,
      },
      routes: { kind: 'shadow' },
      newWindow: true,
    };
  }
  return liveStep(plan, 0, nowMs);
}

/** Live step `index`, or COMPLETED when that step is 100 % (or past the last). */
function liveStep(plan: RolloutPlan, index: number, nowMs: number): RolloutTransition {
  const percent = plan.steps[index];
  if (percent === undefined || percent >= 100) {
    return {
      progress: {
        state: 'COMPLETED',
        phase: 'done',
        stepIndex: Math.min(index, plan.steps.length - 1),
        windowStartedAtMs: null,
        nextCheckAtMs: null,
        candidateReadyAtMs: null,
      },
      routes: { kind: 'final' },
      newWindow: false,
    };
  }
  return {
    progress: {
      state: 'RUNNING',
      phase: 'live',
      stepIndex: index,
      windowStartedAtMs: nowMs,
      nextCheckAtMs: nowMs + plan.intervalSeconds * 1000,
      candidateReadyAtMs: null,
    },
    routes: { kind: 'live', percent },
    newWindow: true,
  };
}

function rollBack(progress: RolloutProgress, reason: string): RolloutTransition {
  return {
    progress: ended(progress, 'ROLLED_BACK'),
    routes: { kind: 'previous' },
    newWindow: false,
    event: { kind: 'rollback', reason },
  };
}

/** An ended rollout keeps its step index (where it ended) for the record. */
function ended(progress: RolloutProgress, state: RolloutState): RolloutProgress {
  return {
    ...progress,
    state,
    phase: 'done',
    windowStartedAtMs: null,
    nextCheckAtMs: null,
    candidateReadyAtMs: null,
  };
}

function windowSeconds(plan: RolloutPlan, phase: RolloutPhase): number {
  return phase === 'shadow' ? (plan.shadowFirstSeconds ?? plan.intervalSeconds) : plan.intervalSeconds;
}

function requireState(progress: RolloutProgress, allowed: readonly RolloutState[], verb: string): void {
  if (allowed.includes(progress.state)) return;
  throw new ModelgateError(
    ErrorCode.CONFLICT,
    `cannot ${verb} a rollout that is ${progress.state}: only one that is ${allowed.join(' or ')} can be`,
  );
}
