import { describe, expect, it } from 'vitest';
import { FakeClock, systemClock } from './clock.js';

describe('FakeClock', () => {
  it('fires due timers in time order, each seeing its own time', () => {
    const clock = new FakeClock(100);
    const fired: string[] = [];
    clock.setTimer(300, () => fired.push(`b@${clock.nowMicros()}`));
    clock.setTimer(200, () => fired.push(`a@${clock.nowMicros()}`));
    clock.setTimer(300, () => fired.push(`c@${clock.nowMicros()}`));
    clock.advance(150);
    expect(fired).toEqual(['a@200']);
    clock.advance(1000);
    expect(fired).toEqual(['a@200', 'b@300', 'c@300']);
    expect(clock.nowMicros()).toBe(1250);
  });

  it('does not fire a cancelled timer', () => {
    const clock = new FakeClock();
    let fired = false;
    const cancel = clock.setTimer(10, () => (fired = true));
    cancel();
    clock.advance(20);
    expect(fired).toBe(false);
    expect(clock.pendingTimers).toBe(0);
  });

  it('fires a timer set in the past on the next advance, and timers set by callbacks when due', () => {
    const clock = new FakeClock(50);
    const fired: number[] = [];
    clock.setTimer(10, () => {
      fired.push(clock.nowMicros());
      clock.setTimer(60, () => fired.push(clock.nowMicros()));
    });
    expect(clock.nextTimerAtMicros()).toBe(10);
    clock.advance(0);
    expect(fired).toEqual([50]);
    clock.advance(10);
    expect(fired).toEqual([50, 60]);
  });

  it('refuses to go back in time', () => {
    const clock = new FakeClock(10);
    expect(() => clock.advanceTo(5)).toThrow(RangeError);
    expect(() => clock.advance(-1)).toThrow(RangeError);
  });
});

describe('systemClock', () => {
  it('reads monotonic microseconds', () => {
    const first = systemClock.nowMicros();
    expect(systemClock.nowMicros()).toBeGreaterThanOrEqual(first);
  });
});
