/** When a failing worker leaves rotation, and for how long. */
export interface OutlierEjectorOptions {
  /** Consecutive connection failures (UNAVAILABLE) that eject a worker. @defaultValue 3 */
  consecutiveFailures?: number;
  /** Length of a first ejection, in ms; each repeat doubles it. @defaultValue 5000 */
  baseEjectionMs?: number;
  /** Longest ejection, in ms. @defaultValue 60000 */
  maxEjectionMs?: number;
  /**
   * How long after a connection failure a worker that has not answered since stays suspect, in ms:
   * the balancer passes it over while another worker is in good standing. @defaultValue 1000
   */
  suspectMs?: number;
}

/** One worker's health as the ejector sees it. */
export interface WorkerHealth {
  /** True while the worker is out of rotation. */
  ejected: boolean;
  /** When the current (or last) ejection ends, ms on the ejector's clock. */
  ejectedUntil?: number | undefined;
  /** Failures since the last success. */
  consecutiveFailures: number;
  /** Ejections counted toward the doubling; drops back to 0 after a healthy spell. */
  ejections: number;
  /** When the worker last failed, ms on the ejector's clock. */
  lastFailureAt?: number | undefined;
}

interface HealthState {
  /** True from an ejection until the worker's next answer: back in rotation, it is on trial. */
  trial: boolean;
  consecutiveFailures: number;
  ejections: number;
  ejectedUntil: number;
  lastFailureAt: number | undefined;
}

/**
 * Outlier ejection by consecutive failures (as Envoy's `consecutive_gateway_failure`). After
 * `consecutiveFailures` failures in a row a worker is ejected for `baseEjectionMs`, doubled on
 * every repeat up to `maxEjectionMs`, then re-admitted on probation: the failure count is kept
 * until a success, so one more failure ejects it again at once (for twice as long). A success
 * resets the count but does not end an ejection early, and once a worker has stayed in rotation
 * for `maxEjectionMs` after its last ejection, its next success also resets the doubling.
 *
 * Pure bookkeeping: the caller reports outcomes and asks; time comes from `now` (ms, monotonic).
 */
export class OutlierEjector {
  private readonly threshold: number;
  private readonly baseEjectionMs: number;
  private readonly maxEjectionMs: number;
  private readonly suspectMs: number;
  private readonly workers = new Map<string, HealthState>();

  constructor(
    options: OutlierEjectorOptions = {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.threshold = Math.max(1, Math.floor(options.consecutiveFailures ?? 3));
    this.baseEjectionMs = options.baseEjectionMs ?? 5000;
    this.maxEjectionMs = Math.max(this.baseEjectionMs, options.maxEjectionMs ?? 60_000);
    this.suspectMs = Math.max(0, options.suspectMs ?? 1000);
  }

  /** Records an answer from `address` (any answer but a connection failure). */
  recordSuccess(address: string): void {
    const state = this.workers.get(address);
    if (state === undefined) return;
    state.consecutiveFailures = 0;
    state.trial = false;
    const now = this.now();
    if (state.ejections > 0 && now >= state.ejectedUntil + this.maxEjectionMs) state.ejections = 0;
  }

  /** Records a connection failure of `address`; true when this failure ejected it. */
  recordFailure(address: string): boolean {
    const now = this.now();
    const state = this.stateOf(address);
    state.consecutiveFailures++;
    state.lastFailureAt = now;
    if (now < state.ejectedUntil || state.consecutiveFailures < this.threshold) return false;
    this.startEjection(state, now);
    return true;
  }

  /**
   * Ejects `address` now, whatever its failure count, as its next failure would (for the doubled
   * length): for a worker that answers nothing at all (StallWatch), which no connection failure
   * ever reports. Re-admitted, it is on probation until it answers. True when this ejected it
   * (false while it is already out).
   */
  eject(address: string): boolean {
    const now = this.now();
    const state = this.stateOf(address);
    state.lastFailureAt = now;
    if (now < state.ejectedUntil) return false;
    state.consecutiveFailures = Math.max(state.consecutiveFailures, this.threshold);
    this.startEjection(state, now);
    return true;
  }

  /**
   * True when `address` was ejected, is back in rotation, and has not answered since: a trial, so
   * the balancer gives it one call at a time until it answers (and its first failure ejects it again).
   */
  onProbation(address: string): boolean {
    const state = this.workers.get(address);
    return state !== undefined && state.trial && this.now() >= state.ejectedUntil;
  }

  /** True while `address` is out of rotation. */
  isEjected(address: string): boolean {
    const state = this.workers.get(address);
    return state !== undefined && this.now() < state.ejectedUntil;
  }

  /**
   * True when `address`'s last outcome was a connection failure less than `suspectMs` ago: a worker
   * that just refused a connection most likely refuses the next call too, and each such call costs
   * a retry. Not an ejection: after the window it is tried again, and an answer clears it.
   */
  isSuspect(address: string): boolean {
    const state = this.workers.get(address);
    if (state === undefined || state.consecutiveFailures === 0 || state.lastFailureAt === undefined) {
      return false;
    }
    return this.now() - state.lastFailureAt < this.suspectMs;
  }

  /** When `address` last failed, or undefined when it never has. */
  lastFailureAt(address: string): number | undefined {
    return this.workers.get(address)?.lastFailureAt;
  }

  /** What the ejector knows about `address`. */
  health(address: string): WorkerHealth {
    const state = this.workers.get(address);
    if (state === undefined) return { ejected: false, consecutiveFailures: 0, ejections: 0 };
    return {
      ejected: this.now() < state.ejectedUntil,
      ejectedUntil: Number.isFinite(state.ejectedUntil) ? state.ejectedUntil : undefined,
      consecutiveFailures: state.consecutiveFailures,
      ejections: state.ejections,
      lastFailureAt: state.lastFailureAt,
    };
  }

  /** Drops everything known about addresses not in `keep` (workers that left the fleet). */
  retain(keep: ReadonlySet<string>): void {
    for (const address of this.workers.keys()) if (!keep.has(address)) this.workers.delete(address);
  }

  /** One more ejection of `state` from `now`: the base length, doubled per repeat up to the maximum. */
  private startEjection(state: HealthState, now: number): void {
    state.trial = true;
    state.ejections++;
    const durationMs = Math.min(this.maxEjectionMs, this.baseEjectionMs * 2 ** (state.ejections - 1));
    state.ejectedUntil = now + durationMs;
  }

  private stateOf(address: string): HealthState {
    let state = this.workers.get(address);
    if (state === undefined) {
      state = {
        trial: false,
        consecutiveFailures: 0,
        ejections: 0,
        ejectedUntil: Number.NEGATIVE_INFINITY,
        lastFailureAt: undefined,
      };
      this.workers.set(address, state);
    }
    return state;
  }
}
