import { describe, expect, it } from 'vitest';
import { type RolloutVerdict } from './rollout-decision.js';
import {
  type RolloutPlan,
  type RolloutProgress,
  type RolloutTransition,
  abortRollout,
  candidatePercent,
  checkWarmup,
  endWindow,
  pauseRollout,
  promoteRollout,
  resumeRollout,
  startRollout,
} from './rollout-machine.js';

const SETTLE_MS = 2000;
const thresholds = { maxErrorRate: 0.01, maxP99Ms: 250, minAgreement: 0.95, minRequests: 100 };
const plan: RolloutPlan = { steps: [10, 50, 100], intervalSeconds: 60, thresholds };
const withShadow: RolloutPlan = { ...plan, shadowFirstSeconds: 30 };
const promote: RolloutVerdict = { decision: 'promote', reason: 'clean' };
const hold: RolloutVerdict = { decision: 'hold', reason: 'too few' };
const rollback: RolloutVerdict = { decision: 'rollback', reason: 'error rate 5 %' };

/** The fake clock: every test reads time off this, never the real one. */
let nowMs = 1_000_000;
const tick = (ms: number): number => (nowMs += ms);

/** A rollout warmed up past the settle time: the transition that began its first window. */
function warmedUp(rolloutPlan: RolloutPlan): RolloutTransition {
  const started = startRollout(nowMs).progress;
  const seen = checkWarmup(started, rolloutPlan, { state: 'ready' }, tick(100), SETTLE_MS)!;
  return checkWarmup(seen.progress, rolloutPlan, { state: 'ready' }, tick(SETTLE_MS), SETTLE_MS)!;
}

describe('a rollout, from start to end', () => {
  it('starts PENDING, routing the candidate as a 0 % shadow and checking readiness at once', () => {
    const start = startRollout(nowMs);
    expect(start.progress).toMatchObject({ state: 'PENDING', phase: 'warmup', nextCheckAtMs: nowMs });
    expect(start.routes).toEqual({ kind: 'warmup' });
    expect(start.event?.kind).toBe('start');
  });

  it('waits while no worker has the candidate READY, and changes nothing', () => {
    const pending = startRollout(nowMs).progress;
    expect(
      checkWarmup(pending, plan, { state: 'waiting', reason: 'LOADING' }, tick(500), SETTLE_MS),
    ).toBeUndefined();
  });

  it('notes when the candidate became READY, then begins the first step once it stayed READY for the settle time', () => {
    const pending = startRollout(nowMs).progress;
    const seen = checkWarmup(pending, plan, { state: 'ready' }, tick(100), SETTLE_MS)!;
    expect(seen).toMatchObject({
      progress: { state: 'PENDING', candidateReadyAtMs: nowMs },
      newWindow: false,
    });
    expect(seen.event).toBeUndefined();
    expect(
      checkWarmup(seen.progress, plan, { state: 'ready' }, tick(SETTLE_MS - 1), SETTLE_MS),
    ).toBeUndefined();
    const first = checkWarmup(seen.progress, plan, { state: 'ready' }, tick(1), SETTLE_MS)!;
    expect(first.progress).toMatchObject({
      state: 'RUNNING',
      phase: 'live',
      stepIndex: 0,
      windowStartedAtMs: nowMs,
      nextCheckAtMs: nowMs + 60_000,
    });
    expect(first).toMatchObject({ routes: { kind: 'live', percent: 10 }, newWindow: true });
    expect(first.event?.reason).toMatch(/10 % of traffic/);
  });

  it('forgets a READY that did not last', () => {
    const pending = startRollout(nowMs).progress;
    const seen = checkWarmup(pending, plan, { state: 'ready' }, tick(100), SETTLE_MS)!;
    const lost = checkWarmup(
      seen.progress,
      plan,
      { state: 'waiting', reason: 'DRAINING' },
      tick(100),
      SETTLE_MS,
    )!;
    expect(lost.progress.candidateReadyAtMs).toBeNull();
  });

  it('rolls back when every worker gave up loading the candidate', () => {
    const pending = startRollout(nowMs).progress;
    const failed = checkWarmup(
      pending,
      plan,
      { state: 'failed', reason: 'w1: bad graph' },
      tick(100),
      SETTLE_MS,
    )!;
    expect(failed.progress).toMatchObject({ state: 'ROLLED_BACK', phase: 'done', nextCheckAtMs: null });
    expect(failed.routes).toEqual({ kind: 'previous' });
    expect(failed.event?.reason).toMatch(/failed to load: w1: bad graph/);
  });

  it('goes 10 → 50 → 100 on promotions and completes with the candidate as the only primary', () => {
    const first = warmedUp(plan);
    const second = endWindow(first.progress, plan, promote, tick(60_000));
    expect(second).toMatchObject({ routes: { kind: 'live', percent: 50 }, newWindow: true });
    expect(candidatePercent(plan, second.progress)).toBe(50);
    const done = endWindow(second.progress, plan, promote, tick(60_000));
    expect(done.progress).toMatchObject({ state: 'COMPLETED', phase: 'done', nextCheckAtMs: null });
    expect(done.routes).toEqual({ kind: 'final' });
    expect(candidatePercent(plan, done.progress)).toBe(100);
  });

  it('holds a step for another window on the same baseline when traffic is short', () => {
    const first = warmedUp(plan);
    const held = endWindow(first.progress, plan, hold, tick(60_000));
    expect(held.progress).toMatchObject({
      state: 'RUNNING',
      stepIndex: 0,
      windowStartedAtMs: first.progress.windowStartedAtMs,
      nextCheckAtMs: nowMs + 60_000,
    });
    expect(held).toMatchObject({ newWindow: false, event: { kind: 'hold', reason: 'too few' } });
    expect(held.routes).toBeUndefined();
  });

  it('rolls back with the reason and the previous routes', () => {
    const first = warmedUp(plan);
    const back = endWindow(first.progress, plan, rollback, tick(60_000));
    expect(back.progress).toMatchObject({ state: 'ROLLED_BACK', phase: 'done' });
    expect(back).toMatchObject({ routes: { kind: 'previous' }, event: { reason: 'error rate 5 %' } });
    expect(candidatePercent(plan, back.progress)).toBe(0);
  });

  it('mirrors first for shadowFirstSeconds when asked, then takes the first live step', () => {
    const shadow = warmedUp(withShadow);
    expect(shadow.progress).toMatchObject({ phase: 'shadow', nextCheckAtMs: nowMs + 30_000 });
    expect(shadow).toMatchObject({ routes: { kind: 'shadow' }, newWindow: true });
    expect(candidatePercent(withShadow, shadow.progress)).toBe(0);
    const live = endWindow(shadow.progress, withShadow, promote, tick(30_000));
    expect(live).toMatchObject({
      progress: { phase: 'live', stepIndex: 0 },
      routes: { kind: 'live', percent: 10 },
    });
  });

  it('completes straight after warm-up when the only step is 100 %', () => {
    const only = warmedUp({ ...plan, steps: [100] });
    expect(only.progress.state).toBe('COMPLETED');
    expect(only.routes).toEqual({ kind: 'final' });
  });
});

describe('moves by hand', () => {
  const running = (): RolloutProgress => warmedUp(plan).progress;

  it('pauses with the routes where they are and no window, and resumes with a new window at the same step', () => {
    const paused = pauseRollout(running());
    expect(paused.progress).toMatchObject({ state: 'PAUSED', nextCheckAtMs: null, stepIndex: 0 });
    expect(paused.routes).toBeUndefined();
    const resumed = resumeRollout(paused.progress, plan, tick(5000));
    expect(resumed.progress).toMatchObject({
      state: 'RUNNING',
      stepIndex: 0,
      windowStartedAtMs: nowMs,
      nextCheckAtMs: nowMs + 60_000,
    });
    expect(resumed.newWindow).toBe(true);
  });

  it('resumes a rollout paused while warming up into warm-up again', () => {
    const paused = pauseRollout(startRollout(nowMs).progress);
    const resumed = resumeRollout(paused.progress, plan, tick(10));
    expect(resumed.progress).toMatchObject({ state: 'PENDING', phase: 'warmup', nextCheckAtMs: nowMs });
    expect(resumed.newWindow).toBe(false);
  });

  it('aborts from any state in progress with the previous routes back', () => {
    for (const progress of [startRollout(nowMs).progress, running(), pauseRollout(running()).progress]) {
      const aborted = abortRollout(progress);
      expect(aborted.progress.state).toBe('ABORTED');
      expect(aborted.routes).toEqual({ kind: 'previous' });
    }
  });

  it('promotes to 100 % at once', () => {
    const promoted = promoteRollout(running());
    expect(promoted.progress.state).toBe('COMPLETED');
    expect(promoted.routes).toEqual({ kind: 'final' });
    expect(promoted.event?.kind).toBe('force-promote');
  });

  it.each<[string, (progress: RolloutProgress) => unknown, RegExp]>([
    ['pausing an ended rollout', pauseRollout, /cannot pause a rollout that is COMPLETED/],
    [
      'resuming one that is not paused',
      (p) => resumeRollout(p, plan, nowMs),
      /cannot resume a rollout that is COMPLETED: only one that is PAUSED can be/,
    ],
    ['aborting an ended rollout', abortRollout, /cannot abort a rollout that is COMPLETED/],
    [
      'judging a window of an ended rollout',
      (p) => endWindow(p, plan, promote, nowMs),
      /cannot judge a window/,
    ],
  ])('refuses %s with CONFLICT', (_what, move, message) => {
    const completed = promoteRollout(running()).progress;
    expect(() => move(completed)).toThrow(message);
    expect(() => move(completed)).toThrow(expect.objectContaining({ code: 'CONFLICT' }) as Error);
  });
});
