/** How many retries a client may spend. */
export interface RetryBudgetOptions {
  /** Fraction of the requests started in the window that may also be retried. @defaultValue 0.2 */
  ratio?: number;
  /** Retries allowed per window whatever the traffic, so a quiet client can still fail over. @defaultValue 3 */
  minRetries?: number;
  /** Length of the sliding window, in ms. @defaultValue 1000 */
  windowMs?: number;
  /** Slots the window is counted in; more slots slide more smoothly. @defaultValue 10 */
  slots?: number;
}

/** The budget's counts at one moment. */
export interface RetryBudgetState {
  /** Requests (first attempts) started in the window. */
  requests: number;
  /** Retries started in the window. */
  retries: number;
  /** Retries the window allows: max(minRetries, floor(ratio × requests)). */
  limit: number;
}

interface Slot {
  /** Index of the slot-length interval this slot counts (time / slotMs, floored). */
  epoch: number;
  requests: number;
  retries: number;
}

/**
 * A retry budget over a sliding window (≈ Finagle's RetryBudget, Envoy's retry budget): a retry
 * may start while the retries started in the last `windowMs` stay within
 * max(`minRetries`, `ratio` × requests started in the same window). Under a partial outage each
 * request still gets its one retry; when every worker fails, retries add at most `ratio` more
 * load instead of doubling it.
 *
 * The window counts requests *started* rather than requests in flight: a second of traffic is a
 * steadier measure of the load. The calls a worker held when it died are retried outside the
 * budget (InferenceClient, `recordRetry`): at high concurrency and latency they can outnumber a
 * second's 20 %, and each of them deserves its retry on a survivor.
 *
 * Time comes from `now` (ms, monotonic), so tests move it by hand.
 */
export class RetryBudget {
  private readonly ratio: number;
  private readonly minRetries: number;
  private readonly slotMs: number;
  private readonly slots: Slot[];

  constructor(
    options: RetryBudgetOptions = {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.ratio = options.ratio ?? 0.2;
    this.minRetries = options.minRetries ?? 3;
    const windowMs = options.windowMs ?? 1000;
    const slotCount = Math.max(1, Math.floor(options.slots ?? 10));
    if (!(this.ratio >= 0) || !(this.minRetries >= 0) || !(windowMs > 0)) {
      throw new RangeError('RetryBudget needs ratio >= 0, minRetries >= 0 and windowMs > 0');
    }
    this.slotMs = windowMs / slotCount;
    this.slots = Array.from({ length: slotCount }, () => ({
      epoch: Number.NEGATIVE_INFINITY,
      requests: 0,
      retries: 0,
    }));
  }

  /** Counts one request (a first attempt) toward the budget. */
  recordRequest(): void {
    this.currentSlot().requests++;
  }

  /** Takes one retry from the budget: true (and counted) when the budget allows it, else false. */
  tryAcquireRetry(): boolean {
    const state = this.state();
    if (state.retries + 1 > state.limit) return false;
    this.currentSlot().retries++;
    return true;
  }

  /** Counts a retry that was allowed outside the budget, so the window still sees its load. */
  recordRetry(): void {
    this.currentSlot().retries++;
  }

  /** The counts over the current window. */
  state(): RetryBudgetState {
    const epoch = this.epochAt(this.now());
    let requests = 0;
    let retries = 0;
    for (const slot of this.slots) {
      if (slot.epoch <= epoch - this.slots.length || slot.epoch > epoch) continue;
      requests += slot.requests;
      retries += slot.retries;
    }
    return { requests, retries, limit: Math.max(this.minRetries, Math.floor(this.ratio * requests)) };
  }

  private epochAt(nowMs: number): number {
    return Math.floor(nowMs / this.slotMs);
  }

  private currentSlot(): Slot {
    const epoch = this.epochAt(this.now());
    const index = ((epoch % this.slots.length) + this.slots.length) % this.slots.length;
    const slot = this.slots[index];
    if (slot === undefined) throw new RangeError(`retry budget slot ${index} is missing`);
    if (slot.epoch !== epoch) {
      slot.epoch = epoch;
      slot.requests = 0;
      slot.retries = 0;
    }
    return slot;
  }
}
