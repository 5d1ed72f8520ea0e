import { type ConfigSnapshot, parseConfigSnapshot } from '@modelgate/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RelayedConfigSource } from './relayed-config-source.js';

const snapshot = (revision: number): ConfigSnapshot =>
  parseConfigSnapshot({ revision, models: [], endpoints: [] });

/** An apply callback that records revisions and can be held or made to fail. */
function applier() {
  const applied: number[] = [];
  let failNext = 0;
  let hold: Promise<void> | undefined;
  return {
    applied,
    failTimes(times: number) {
      failNext = times;
    },
    holdUntil(release: Promise<void>) {
      hold = release;
    },
    apply: async (s: ConfigSnapshot) => {
      if (hold) await hold;
      hold = undefined;
      if (failNext > 0) {
        failNext--;
        throw new Error('tables refused it');
      }
      applied.push(s.revision);
    },
  };
}

describe('RelayedConfigSource: an event loop’s snapshots, relayed by the primary', () => {
  const errors: string[] = [];
  const options = { retryIntervalMs: 1000, onError: (message: string) => errors.push(message) };

  beforeEach(() => {
    vi.useFakeTimers();
    errors.length = 0;
  });
  afterEach(() => vi.useRealTimers());

  it('applies the snapshot it was welcomed with before start resolves', async () => {
    const target = applier();
    const source = new RelayedConfigSource(options, snapshot(4));
    await source.start(target.apply);
    await source.started;
    expect(target.applied).toEqual([4]);
    expect(source.revision).toBe(4);
  });

  it('starts at once, with nothing applied, when the primary had no snapshot yet', async () => {
    const target = applier();
    const source = new RelayedConfigSource(options);
    await source.start(target.apply);
    await source.started;
    expect(target.applied).toEqual([]);
    source.offer(snapshot(1));
    await vi.waitFor(() => expect(target.applied).toEqual([1]));
  });

  it('applies only the newest of the snapshots offered during an apply, and never an older one', async () => {
    const target = applier();
    const source = new RelayedConfigSource(options);
    await source.start(target.apply);
    let release = (): void => undefined;
    target.holdUntil(new Promise<void>((resolve) => (release = resolve)));
    source.offer(snapshot(1));
    source.offer(snapshot(3));
    source.offer(snapshot(2));
    release();
    await vi.waitFor(() => expect(target.applied).toEqual([1, 3]));
    source.offer(snapshot(2));
    await vi.advanceTimersByTimeAsync(5000);
    expect(target.applied).toEqual([1, 3]);
  });

  it('retries a failed apply after the retry interval', async () => {
    const target = applier();
    const source = new RelayedConfigSource(options, snapshot(2));
    target.failTimes(1);
    await source.start(target.apply);
    expect(target.applied).toEqual([]);
    expect(errors).toEqual(['applying revision 2 failed; retrying']);
    await vi.advanceTimersByTimeAsync(999);
    expect(target.applied).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(target.applied).toEqual([2]);
  });

  it('drops the retry of a snapshot a newer one replaced', async () => {
    const target = applier();
    const source = new RelayedConfigSource(options, snapshot(2));
    target.failTimes(1);
    await source.start(target.apply);
    source.offer(snapshot(3));
    await vi.waitFor(() => expect(target.applied).toEqual([3]));
    await vi.advanceTimersByTimeAsync(5000);
    expect(target.applied).toEqual([3]);
  });

  it('applies nothing after stop', async () => {
    const target = applier();
    const source = new RelayedConfigSource(options);
    await source.start(target.apply);
    await source.stop();
    source.offer(snapshot(1));
    await vi.advanceTimersByTimeAsync(5000);
    expect(target.applied).toEqual([]);
  });
});
