// At most `limit` tasks at a time, the rest waiting first in, first out. Image decoding runs on
// libuv's thread pool (sharp): unbounded, a burst of large images would hold every pool thread
// and delay the file and DNS work the rest of the gateway queues there.

/** Runs async tasks at most `limit` at a time, in arrival order. */
export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
  }

  /** Tasks running now. */
  get active(): number {
    return this.running;
  }

  /** Tasks waiting for a turn. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `task` once fewer than `limit` others run; settles as it does. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter (running stays the same), else frees up.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
