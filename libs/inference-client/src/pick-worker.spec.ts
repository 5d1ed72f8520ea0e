import { describe, expect, it } from 'vitest';
import { type WorkerLoad, pickWorker } from './pick-worker.js';

const load = (address: string, outstanding: number, extra: Partial<WorkerLoad> = {}): WorkerLoad => ({
  address,
  outstanding,
  ejected: false,
  ...extra,
});

describe('pickWorker', () => {
  it('picks the worker with the fewest outstanding requests', () => {
    expect(pickWorker([load('a', 4), load('b', 1), load('c', 2)])).toEqual({ address: 'b', panic: false });
  });

  it('lets equally loaded workers take turns as the turn counter advances', () => {
    const workers = [load('a', 1), load('b', 0), load('c', 0), load('d', 0)];
    const picks = [0, 1, 2, 3, 4, 5].map((turn) => pickWorker(workers, { turn })?.address);
    expect(picks).toEqual(['b', 'c', 'd', 'b', 'c', 'd']);
  });

  it('spreads a burst evenly when each pick is counted before the next', () => {
    const workers = [load('a', 0), load('b', 0), load('c', 0)];
    for (let turn = 0; turn < 30; turn++) {
      const pick = pickWorker(workers, { turn });
      const chosen = workers.find((w) => w.address === pick?.address);
      if (chosen) chosen.outstanding++;
    }
    expect(workers.map((w) => w.outstanding)).toEqual([10, 10, 10]);
  });

  it('skips an ejected worker even when it is the least loaded', () => {
    const workers = [load('a', 0, { ejected: true }), load('b', 7)];
    expect(pickWorker(workers)).toEqual({ address: 'b', panic: false });
  });

  it('passes over a suspect worker while another is in good standing, and takes it when none is', () => {
    const workers = [load('a', 0, { suspect: true }), load('b', 7), load('c', 2, { ejected: true })];
    expect(pickWorker(workers)).toEqual({ address: 'b', panic: false });
    expect(pickWorker(workers, { exclude: new Set(['b']) })).toEqual({ address: 'a', panic: false });
  });

  it('gives a worker on probation one call at a time: passed over while its trial call runs', () => {
    expect(pickWorker([load('a', 0, { probation: true }), load('b', 7)])?.address).toBe('a');
    const trying = [load('a', 1, { probation: true }), load('b', 7)];
    expect(pickWorker(trying)).toEqual({ address: 'b', panic: false });
    expect(pickWorker(trying, { exclude: new Set(['b']) })).toEqual({ address: 'a', panic: false });
  });

  it('never picks an excluded worker, and gives up when every worker is excluded', () => {
    const workers = [load('a', 0), load('b', 9)];
    expect(pickWorker(workers, { exclude: new Set(['a']) })?.address).toBe('b');
    expect(pickWorker(workers, { exclude: new Set(['a', 'b']) })).toBeUndefined();
    expect(pickWorker([])).toBeUndefined();
  });

  it('in panic mode (every candidate ejected) still tries the worker whose last failure is oldest', () => {
    const workers = [
      load('a', 0, { ejected: true, lastFailureAt: 300 }),
      load('b', 5, { ejected: true, lastFailureAt: 100 }),
      load('c', 0, { ejected: true, lastFailureAt: 200 }),
    ];
    expect(pickWorker(workers)).toEqual({ address: 'b', panic: true });
    expect(pickWorker(workers, { exclude: new Set(['b']) })).toEqual({ address: 'c', panic: true });
  });

  it('prefers a healthy worker over panic mode when one is left after exclusions', () => {
    const workers = [load('a', 0, { ejected: true, lastFailureAt: 1 }), load('b', 3), load('c', 0)];
    expect(pickWorker(workers, { exclude: new Set(['c']) })).toEqual({ address: 'b', panic: false });
  });

  it('breaks panic ties by load, then by turn', () => {
    const workers = [
      load('a', 2, { ejected: true, lastFailureAt: 50 }),
      load('b', 1, { ejected: true, lastFailureAt: 50 }),
      load('c', 1, { ejected: true, lastFailureAt: 50 }),
    ];
    expect(pickWorker(workers, { turn: 0 })?.address).toBe('b');
    expect(pickWorker(workers, { turn: 1 })?.address).toBe('c');
  });
});
