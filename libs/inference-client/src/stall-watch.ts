/**
 * Which workers have stopped answering: a process stopped (SIGSTOP), a wedged event loop, a
 * connection whose handshake never completes. Such a worker refuses nothing, so no connection
 * failure ever ejects it, and least-outstanding balancing keeps giving it a share of the calls,
 * each of which waits out its deadline.
 *
 * A worker **owes** an answer for each call sent to it until the call's first response (a result,
 * an error of its own, a generation's first message). It is **stalled** when it has owed one for
 * `stallMs` and given none, while another worker answered in that time (so a model that is slow
 * everywhere stalls nothing). A call that ends at its client-side deadline ends unanswered: the
 * silence goes on, so it spans deadlines shorter than `stallMs`. A call the caller cancels, or
 * whose connection failed (the ejector counts those), is simply no longer owed.
 *
 * Pure bookkeeping: the caller reports dispatches and outcomes and asks; time comes from `now` (ms).
 */
export interface StallWatchOptions {
  /**
   * How long a worker may owe an answer before it counts as stalled, in ms. Longer than the
   * longest a healthy worker takes to first answer a call while another answers: a model's run
   * with its queue wait, a generation's prefill. @defaultValue 3000
   */
  stallMs?: number;
}

interface Silence {
  /** Since when the worker has owed an answer and given none. */
  since: number;
  /** Calls sent to it that have had no first response and are still running. */
  owed: number;
  /** True when its last owed call ended at its deadline unanswered: the silence goes on. */
  unanswered: boolean;
}

export class StallWatch {
  readonly stallMs: number;
  private readonly workers = new Map<string, Silence>();
  /** When any worker last answered. */
  private lastAnswerAt = Number.NEGATIVE_INFINITY;

  constructor(
    options: StallWatchOptions = {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.stallMs = Math.max(1, options.stallMs ?? 3000);
  }

  /** A call goes to `address`: a silence starts now unless one is already going on. */
  dispatched(address: string): void {
    const silence = this.workers.get(address);
    if (silence === undefined) {
      this.workers.set(address, { since: this.now(), owed: 1, unanswered: false });
      return;
    }
    if (silence.owed === 0 && !silence.unanswered) silence.since = this.now();
    silence.owed++;
  }

  /** A call's first response came from `address`: it has spoken now. */
  answered(address: string): void {
    const now = this.now();
    this.lastAnswerAt = now;
    const silence = this.workers.get(address);
    if (silence === undefined) return;
    silence.owed = Math.max(0, silence.owed - 1);
    silence.since = now;
    silence.unanswered = false;
  }

  /**
   * `address` sent something that answers no owed call (a running generation's next token): it is
   * alive, so its silence starts over, but it still owes what it owes.
   */
  spoke(address: string): void {
    const now = this.now();
    this.lastAnswerAt = now;
    const silence = this.workers.get(address);
    if (silence === undefined) return;
    silence.since = now;
    silence.unanswered = false;
  }

  /** A call to `address` reached its deadline with no response: it is no longer owed, the silence goes on. */
  timedOut(address: string): void {
    const silence = this.workers.get(address);
    if (silence === undefined) return;
    silence.owed = Math.max(0, silence.owed - 1);
    silence.unanswered = true;
  }

  /** A call to `address` ended without saying anything of the worker (cancelled, connection failed). */
  dropped(address: string): void {
    const silence = this.workers.get(address);
    if (silence !== undefined) silence.owed = Math.max(0, silence.owed - 1);
  }

  /** True when `address` has owed an answer for `stallMs` or longer while another worker answered. */
  isStalled(address: string): boolean {
    const silence = this.workers.get(address);
    if (silence === undefined || (silence.owed === 0 && !silence.unanswered)) return false;
    return this.now() - silence.since >= this.stallMs && this.lastAnswerAt > silence.since;
  }

  /**
   * Forgets the silence of `address` (its calls still running stay owed): after an ejection its
   * next call is a fresh trial, a stall counted from then.
   */
  reset(address: string): void {
    const silence = this.workers.get(address);
    if (silence === undefined) return;
    silence.since = this.now();
    silence.unanswered = false;
  }

  /** Drops addresses not in `keep` (workers that left the fleet). */
  retain(keep: ReadonlySet<string>): void {
    for (const address of this.workers.keys()) if (!keep.has(address)) this.workers.delete(address);
  }
}
