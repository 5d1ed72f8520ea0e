import { type RolloutPlan, type RolloutTransition } from '@modelgate/routing';
import { describe, expect, it } from 'vitest';
import { appendHistory } from './rollout-record.js';

const plan: RolloutPlan = {
  steps: [10, 100],
  intervalSeconds: 60,
  thresholds: { maxErrorRate: 0.01, maxP99Ms: Infinity, minAgreement: 0.95, minRequests: 10 },
};
const live = {
  state: 'RUNNING' as const,
  phase: 'live' as const,
  stepIndex: 0,
  windowStartedAtMs: 0,
  nextCheckAtMs: 60_000,
  candidateReadyAtMs: null,
};
const held = (reason: string): RolloutTransition => ({
  progress: live,
  newWindow: false,
  event: { kind: 'hold', reason },
});
const at = (seconds: number) => ({ at: new Date(seconds * 1000), actor: 'system:rollouts' });

describe('appendHistory', () => {
  it('records an event with the state, phase and traffic share after it', () => {
    const history = appendHistory([], held('3 requests'), plan, at(60));
    expect(history).toEqual([
      {
        at: '1970-01-01T00:01:00.000Z',
        event: 'hold',
        actor: 'system:rollouts',
        state: 'RUNNING',
        phase: 'live',
        percent: 10,
        reason: '3 requests',
      },
    ]);
  });

  it('folds holds at the same step into one entry that counts them and keeps the latest reason', () => {
    let history = appendHistory([], held('3 requests'), plan, at(60));
    history = appendHistory(history, held('5 requests'), plan, at(120));
    history = appendHistory(history, held('8 requests'), plan, at(180));
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ reason: '8 requests', times: 3, at: '1970-01-01T00:03:00.000Z' });
  });

  it('adds nothing for a move without an event', () => {
    expect(appendHistory([], { progress: live, newWindow: false }, plan, at(1))).toEqual([]);
  });
});
