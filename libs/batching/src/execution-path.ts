/**
 * Where a batch computes, decided once per batch at dispatch: inline on the worker's event-loop
 * thread (no hop to a session thread and back), on the solo session's thread, or on an instance.
 *
 * Why inline exists: at low load a request's cost over the model is mostly hops. A hop to a
 * session thread and back costs about 1 ms on a virtual machine whose idle cores wake slowly, a
 * third of a small encoder's run. Running the batch on the thread that received it removes that
 * hop; the price is that the event loop does nothing else while the batch computes. So inline is
 * kept to a batch that finds the model idle and is known to be short: under load every batch goes
 * through the dynamic batcher to the session threads, as before.
 *
 * The rule, applied in this order by {@link chooseExecutionPath}:
 *
 *  1. The model has no solo session (a session with a thread per core) → `instance`
 *     (`no-solo-session`).
 *  2. The solo session is running a batch → `instance` (`solo-busy`).
 *  3. Another batch is running or rows wait in the queue → `instance` (`model-busy`): the solo
 *     session is for a batch that would otherwise compute by itself.
 *  4. The solo session lives on its own thread → `solo` (`alone`).
 *  5. The batch forbids inline (a test hook that kills a session thread) → `instance`
 *     (`thread-required`).
 *  6. The batch's run time is not known yet → `instance` (`unmeasured`).
 *  7. The estimate exceeds `maxInlineMicros` → `instance` (`too-long`): a long batch must not hold
 *     the event loop (a generation prefill never gets here; a 100 ms encoder batch does not run
 *     inline under the default cap).
 *  8. Otherwise → `inline` (`alone-inline`).
 *
 * So the event loop is held by at most one inline batch at a time, whose estimate was at most
 * `maxInlineMicros`. No clock and no I/O: the caller measures and passes everything.
 */

/** What the decision needs to know of the batch and the model's sessions, at dispatch. */
export interface ExecutionCandidate {
  /** The model's solo session: none, idle, or running a batch. */
  readonly solo: 'none' | 'idle' | 'busy';
  /** Whether the solo session runs on the event-loop thread (inline) rather than a thread of its own. */
  readonly soloInline: boolean;
  /** Batches of this model running now, this one excluded. */
  readonly otherBatchesRunning: number;
  /** Rows of this model still queued after this batch left the queue. */
  readonly rowsQueued: number;
  /** Whether the batch may run on the event-loop thread at all (false for a session-crash test hook). */
  readonly inlineAllowed: boolean;
  /** The batch's expected run time on the solo session, in µs; undefined before any measurement. */
  readonly estimatedMicros: number | undefined;
}

/** Limits of the inline path. */
export interface InlineLimits {
  /** Longest expected run, in µs, that may hold the event loop (WORKER_INLINE_MAX_MS × 1000). */
  readonly maxInlineMicros: number;
}

/** Where the batch runs. */
export type ExecutionPath = 'inline' | 'solo' | 'instance';

/** Why (rule numbers in this file's top comment). */
export type ExecutionReason =
  | 'no-solo-session'
  | 'solo-busy'
  | 'model-busy'
  | 'alone'
  | 'thread-required'
  | 'unmeasured'
  | 'too-long'
  | 'alone-inline';

/** The decision and its reason. */
export interface ExecutionChoice {
  readonly path: ExecutionPath;
  readonly reason: ExecutionReason;
}

/** Decides where one batch runs (see the rule in this file's top comment). */
export function chooseExecutionPath(candidate: ExecutionCandidate, limits: InlineLimits): ExecutionChoice {
  if (candidate.solo === 'none') return { path: 'instance', reason: 'no-solo-session' };
  if (candidate.solo === 'busy') return { path: 'instance', reason: 'solo-busy' };
  if (candidate.otherBatchesRunning > 0 || candidate.rowsQueued > 0)
    return { path: 'instance', reason: 'model-busy' };
  if (!candidate.soloInline) return { path: 'solo', reason: 'alone' };
  if (!candidate.inlineAllowed) return { path: 'instance', reason: 'thread-required' };
  if (candidate.estimatedMicros === undefined) return { path: 'instance', reason: 'unmeasured' };
  if (candidate.estimatedMicros > limits.maxInlineMicros) return { path: 'instance', reason: 'too-long' };
  return { path: 'inline', reason: 'alone-inline' };
}

/**
 * The solo session's run time per unit of work (a token for token models: rows × padded length;
 * a row otherwise), as an exponentially weighted mean of its measured runs, so a batch's estimate
 * follows the machine as it speeds up or slows down. Pure: the caller feeds every measured run.
 */
export class RunTimeEstimator {
  private microsPerUnit: number | undefined;

  /** @param weight Share of each new measurement in the mean (0–1]. @defaultValue 0.2 */
  constructor(private readonly weight = 0.2) {
    if (!(weight > 0 && weight <= 1)) throw new RangeError(`weight must be in (0, 1], not ${weight}`);
  }

  /** Records one run of `units` units that took `micros` µs (runs of no units or no time are ignored). */
  observe(units: number, micros: number): void {
    if (!(units > 0) || !(micros >= 0) || !Number.isFinite(micros)) return;
    const sample = micros / units;
    this.microsPerUnit =
      this.microsPerUnit === undefined
        ? sample
        : this.microsPerUnit + this.weight * (sample - this.microsPerUnit);
  }

  /** The expected µs of a run of `units` units, or undefined before any measurement. */
  estimate(units: number): number | undefined {
    return this.microsPerUnit === undefined ? undefined : this.microsPerUnit * Math.max(0, units);
  }
}
