import { describe, expect, it } from 'vitest';
import { OutlierEjector } from './outlier-ejector.js';

function ejectorAt(options: ConstructorParameters<typeof OutlierEjector>[0] = {}) {
  const time = { now: 1_000 };
  return { ejector: new OutlierEjector(options, () => time.now), time };
}

function fail(ejector: OutlierEjector, address: string, times: number): boolean[] {
  return Array.from({ length: times }, () => ejector.recordFailure(address));
}

describe('OutlierEjector', () => {
  it('ejects a worker on its third consecutive failure, not before', () => {
    const { ejector } = ejectorAt();
    expect(fail(ejector, 'a', 2)).toEqual([false, false]);
    expect(ejector.isEjected('a')).toBe(false);
    expect(ejector.recordFailure('a')).toBe(true);
    expect(ejector.isEjected('a')).toBe(true);
    expect(ejector.isEjected('b')).toBe(false);
  });

  it('starts counting again after a success', () => {
    const { ejector } = ejectorAt();
    fail(ejector, 'a', 2);
    ejector.recordSuccess('a');
    expect(fail(ejector, 'a', 2)).toEqual([false, false]);
    expect(ejector.isEjected('a')).toBe(false);
  });

  it('re-admits the worker once the base ejection time has passed', () => {
    const { ejector, time } = ejectorAt();
    fail(ejector, 'a', 3);
    time.now += 4_999;
    expect(ejector.isEjected('a')).toBe(true);
    time.now += 1;
    expect(ejector.isEjected('a')).toBe(false);
  });

  it('ejects a re-admitted worker again on its first failure, for twice as long, up to the maximum', () => {
    const { ejector, time } = ejectorAt();
    const lengths: number[] = [];
    fail(ejector, 'a', 3);
    for (let round = 0; round < 6; round++) {
      const until = ejector.health('a').ejectedUntil ?? 0;
      lengths.push(until - time.now);
      time.now = until;
      expect(ejector.recordFailure('a')).toBe(true);
    }
    expect(lengths).toEqual([5_000, 10_000, 20_000, 40_000, 60_000, 60_000]);
  });

  it('does not end an ejection early on a late success, nor extend it on more failures', () => {
    const { ejector, time } = ejectorAt();
    fail(ejector, 'a', 3);
    const until = ejector.health('a').ejectedUntil;
    ejector.recordSuccess('a');
    fail(ejector, 'a', 5);
    expect(ejector.isEjected('a')).toBe(true);
    expect(ejector.health('a').ejectedUntil).toBe(until);
    time.now = until ?? 0;
    expect(ejector.isEjected('a')).toBe(false);
  });

  it('forgives the doubling once the worker has stayed healthy for the maximum ejection time', () => {
    const { ejector, time } = ejectorAt();
    fail(ejector, 'a', 3);
    time.now += 5_000;
    fail(ejector, 'a', 1); // probation failure: 10 s
    time.now += 10_000 + 60_000;
    ejector.recordSuccess('a');
    expect(ejector.health('a').ejections).toBe(0);
    fail(ejector, 'a', 3);
    expect((ejector.health('a').ejectedUntil ?? 0) - time.now).toBe(5_000);
  });

  it('remembers when each worker last failed, for panic mode', () => {
    const { ejector, time } = ejectorAt();
    expect(ejector.lastFailureAt('a')).toBeUndefined();
    ejector.recordFailure('a');
    time.now += 10;
    ejector.recordFailure('b');
    expect(ejector.lastFailureAt('a')).toBe(1_000);
    expect(ejector.lastFailureAt('b')).toBe(1_010);
  });

  it('holds a worker suspect from a connection failure until an answer or the end of the window', () => {
    const { ejector, time } = ejectorAt({ suspectMs: 500 });
    expect(ejector.isSuspect('a')).toBe(false);
    ejector.recordFailure('a');
    expect(ejector.isSuspect('a')).toBe(true);
    time.now += 499;
    expect(ejector.isSuspect('a')).toBe(true);
    time.now += 1;
    expect(ejector.isSuspect('a')).toBe(false); // tried again after the window
    ejector.recordFailure('a');
    expect(ejector.isSuspect('a')).toBe(true);
    ejector.recordSuccess('a');
    expect(ejector.isSuspect('a')).toBe(false);
  });

  it('honours its options and forgets workers that left the fleet', () => {
    const { ejector } = ejectorAt({ consecutiveFailures: 1, baseEjectionMs: 100, maxEjectionMs: 150 });
    expect(ejector.recordFailure('a')).toBe(true);
    expect(ejector.health('a')).toMatchObject({ ejected: true, ejectedUntil: 1_100, ejections: 1 });
    ejector.retain(new Set(['b']));
    expect(ejector.health('a')).toEqual({ ejected: false, consecutiveFailures: 0, ejections: 0 });
  });

  it('ejects a worker that answers nothing at once, doubling on repeats, and keeps it on probation until it answers', () => {
    const { ejector, time } = ejectorAt();
    expect(ejector.eject('a')).toBe(true);
    expect(ejector.isEjected('a')).toBe(true);
    expect(ejector.eject('a')).toBe(false);
    expect(ejector.onProbation('a')).toBe(false);
    time.now += 5_000;
    expect(ejector.isEjected('a')).toBe(false);
    expect(ejector.onProbation('a')).toBe(true);
    expect(ejector.eject('a')).toBe(true);
    expect((ejector.health('a').ejectedUntil ?? 0) - time.now).toBe(10_000);
    time.now += 10_000;
    ejector.recordSuccess('a');
    expect(ejector.onProbation('a')).toBe(false);
    expect(ejector.onProbation('b')).toBe(false);
  });

  it('does not put on probation a worker that answered after its last ejection and fails once now', () => {
    const { ejector, time } = ejectorAt();
    fail(ejector, 'a', 3);
    time.now += 5_000;
    ejector.recordSuccess('a');
    ejector.recordFailure('a');
    expect(ejector.onProbation('a')).toBe(false);
  });

  it('puts a worker ejected for connection failures on probation too once re-admitted', () => {
    const { ejector, time } = ejectorAt();
    fail(ejector, 'a', 3);
    expect(ejector.onProbation('a')).toBe(false);
    time.now += 5_000;
    expect(ejector.onProbation('a')).toBe(true);
    expect(ejector.recordFailure('a')).toBe(true);
  });
});
