import { describe, expect, it } from 'vitest';
import { type ShutdownClock, type ShutdownPhase, shutDownGracefully } from './graceful-shutdown.js';

/** A clock whose sleeps end only when the test says so. */
class ManualClock implements ShutdownClock {
  readonly sleeps: { ms: number; wake: () => void }[] = [];

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.sleeps.push({ ms, wake: resolve }));
  }
}

/** Lets pending promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function recorder() {
  const events: string[] = [];
  let finishClose: () => void = () => undefined;
  let failClose: (error: Error) => void = () => undefined;
  const steps = {
    markUnready: () => events.push('markUnready'),
    close: () => {
      events.push('close');
      return new Promise<void>((resolve, reject) => {
        finishClose = resolve;
        failClose = reject;
      });
    },
  };
  const onPhase = (phase: ShutdownPhase) => events.push(`phase:${phase}`);
  return { events, steps, onPhase, finishClose: () => finishClose(), failClose: (e: Error) => failClose(e) };
}

describe('shutDownGracefully', () => {
  it('turns unready at once, keeps accepting for the whole delay, then closes and reports drained', async () => {
    const clock = new ManualClock();
    const run = recorder();
    const done = shutDownGracefully(run.steps, { delayMs: 5000, drainTimeoutMs: 30_000 }, clock, run.onPhase);
    await settle();
    expect(run.events).toEqual(['markUnready', 'phase:unready']);
    expect(clock.sleeps.map((sleep) => sleep.ms)).toEqual([5000]);

    clock.sleeps[0]!.wake();
    await settle();
    expect(run.events).toEqual(['markUnready', 'phase:unready', 'phase:closing', 'close']);
    expect(clock.sleeps.map((sleep) => sleep.ms)).toEqual([5000, 30_000]);

    run.finishClose();
    expect(await done).toBe('drained');
    expect(run.events.at(-1)).toBe('phase:drained');
  });

  it('closes without waiting when the delay is 0', async () => {
    const clock = new ManualClock();
    const run = recorder();
    const done = shutDownGracefully(run.steps, { delayMs: 0, drainTimeoutMs: 1000 }, clock, run.onPhase);
    await settle();
    expect(run.events).toEqual(['markUnready', 'phase:unready', 'phase:closing', 'close']);
    expect(clock.sleeps.map((sleep) => sleep.ms)).toEqual([1000]);
    run.finishClose();
    expect(await done).toBe('drained');
  });

  it('gives up on the drain once drainTimeoutMs has passed', async () => {
    const clock = new ManualClock();
    const run = recorder();
    const done = shutDownGracefully(run.steps, { delayMs: 0, drainTimeoutMs: 1000 }, clock, run.onPhase);
    await settle();
    clock.sleeps[0]!.wake();
    expect(await done).toBe('drain-timeout');
    expect(run.events.at(-1)).toBe('phase:drain-timeout');
  });

  it('rejects when closing fails', async () => {
    const clock = new ManualClock();
    const run = recorder();
    const done = shutDownGracefully(run.steps, { delayMs: 0, drainTimeoutMs: 1000 }, clock);
    await settle();
    run.failClose(new Error('server close failed'));
    await expect(done).rejects.toThrow('server close failed');
  });
});
