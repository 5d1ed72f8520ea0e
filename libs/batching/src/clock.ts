import { MAX_TIMER_MS } from '@modelgate/contracts';

/**
 * The batcher's only view of time: a monotonic microsecond clock and one-shot timers. The batching
 * logic never calls `setTimeout` or `performance` itself, so tests drive it with {@link FakeClock}
 * and no real time passes.
 */
export interface Clock {
  /** Monotonic time in microseconds; only differences between readings mean anything. */
  nowMicros(): number;
  /**
   * Calls `callback` once, at `atMicros` on this clock or as soon after as the host allows (at once
   * if that time has passed). Returns a function that cancels the timer; cancelling twice or after
   * it fired does nothing.
   */
  setTimer(atMicros: number, callback: () => void): () => void;
}

/**
 * The process clock: `performance.now()` for time, `setTimeout` for timers. Node timers have
 * millisecond resolution, so a timer may fire up to ~1 ms late; the batcher re-decides whenever a
 * timer fires, so an early or late wake-up costs latency, never correctness.
 */
export const systemClock: Clock = {
  nowMicros: () => performance.now() * 1000,
  setTimer(atMicros, callback) {
    let handle: ReturnType<typeof setTimeout> | undefined;
    const arm = (): void => {
      const delayMs = Math.max(0, Math.ceil((atMicros - performance.now() * 1000) / 1000));
      // Node fires delays past 2^31-1 ms after 1 ms; hop in steps instead.
      handle = delayMs > MAX_TIMER_MS ? setTimeout(arm, MAX_TIMER_MS) : setTimeout(callback, delayMs);
    };
    if (atMicros !== Number.POSITIVE_INFINITY) arm();
    return () => clearTimeout(handle);
  },
};

interface FakeTimer {
  readonly atMicros: number;
  readonly seq: number;
  readonly callback: () => void;
}

/**
 * A clock that moves only when told to, for tests (the worker's included). Timers fire during
 * {@link FakeClock.advance} in time order (ties in the order they were set), and `nowMicros()`
 * reads the timer's own time inside its callback, as a real clock would.
 */
export class FakeClock implements Clock {
  private now: number;
  private nextSeq = 0;
  private timers: FakeTimer[] = [];

  /** @param startMicros - the first reading. @defaultValue 0 */
  constructor(startMicros = 0) {
    this.now = startMicros;
  }

  nowMicros(): number {
    return this.now;
  }

  setTimer(atMicros: number, callback: () => void): () => void {
    const timer: FakeTimer = { atMicros, seq: this.nextSeq++, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Timers set and not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /** When the next timer is due, or undefined when none is pending. */
  nextTimerAtMicros(): number | undefined {
    return this.nextDue(Number.POSITIVE_INFINITY)?.atMicros;
  }

  /** Moves time forward by `micros` (0 fires timers already due), firing timers on the way. */
  advance(micros: number): void {
    if (!(micros >= 0)) throw new RangeError(`FakeClock cannot go back in time (advance ${micros})`);
    this.advanceTo(this.now + micros);
  }

  /** Moves time to `atMicros` (not backwards), firing every timer due by then, in order. */
  advanceTo(atMicros: number): void {
    if (atMicros < this.now) throw new RangeError(`FakeClock cannot go back to ${atMicros} from ${this.now}`);
    for (let due = this.nextDue(atMicros); due !== undefined; due = this.nextDue(atMicros)) {
      this.timers = this.timers.filter((t) => t !== due);
      this.now = Math.max(this.now, due.atMicros);
      due.callback();
    }
    this.now = atMicros;
  }

  private nextDue(limitMicros: number): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const timer of this.timers) {
      if (timer.atMicros > limitMicros) continue;
      if (
        best === undefined ||
        timer.atMicros < best.atMicros ||
        (timer.atMicros === best.atMicros && timer.seq < best.seq)
      ) {
        best = timer;
      }
    }
    return best;
  }
}
