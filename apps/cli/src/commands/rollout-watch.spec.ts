import { type RolloutView } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { watchRollout } from './rollout-watch.js';

const running = {
  id: 'r1',
  state: 'RUNNING',
  phase: 'live',
  stepIndex: 0,
  percent: 5,
  history: [],
} as unknown as RolloutView;

describe('watchRollout', () => {
  it('hands on the first view and each that moved, sleeping the interval between reads, until the rollout ends', async () => {
    const views: RolloutView[] = [
      running,
      running,
      { ...running, stepIndex: 1, percent: 25, history: [{} as RolloutView['history'][number]] },
      { ...running, state: 'COMPLETED', phase: 'done', percent: 100 },
    ];
    const slept: number[] = [];
    const changes: RolloutView[] = [];
    let reads = 0;
    const final = await watchRollout({
      read: () => Promise.resolve(views[reads++]!),
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
      onChange: (view) => changes.push(view),
      intervalMs: 250,
    });
    expect(final.state).toBe('COMPLETED');
    expect(reads).toBe(4);
    expect(slept).toEqual([250, 250, 250]);
    expect(changes.map((view) => `${view.state} ${view.percent}`)).toEqual([
      'RUNNING 5',
      'RUNNING 25',
      'COMPLETED 100',
    ]);
  });

  it('ends at once on a rollout that is over already, and keeps waiting through a pause', async () => {
    const changes: string[] = [];
    const over = await watchRollout({
      read: () => Promise.resolve({ ...running, state: 'ROLLED_BACK' }),
      sleep: () => Promise.reject(new Error('no sleep for a finished rollout')),
      onChange: (view) => changes.push(view.state),
      intervalMs: 1,
    });
    expect(over.state).toBe('ROLLED_BACK');
    expect(changes).toEqual(['ROLLED_BACK']);
    const paused = [
      { ...running, state: 'PAUSED' },
      { ...running, state: 'PAUSED' },
      { ...running, state: 'ABORTED' },
    ];
    let reads = 0;
    const final = await watchRollout({
      read: () => Promise.resolve(paused[reads++] as RolloutView),
      sleep: () => Promise.resolve(),
      onChange: () => undefined,
      intervalMs: 1,
    });
    expect(final.state).toBe('ABORTED');
    expect(reads).toBe(3);
  });
});
