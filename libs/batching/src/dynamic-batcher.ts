import { ErrorCode, isModelgateError, ModelgateError } from '@modelgate/contracts';
import { type BatchLimits, resolveBatchLimits } from './batch-limits.js';
import { type DispatchReason, type QueuedRequest, decideNextBatch } from './batch-policy.js';
import {
  type BatchInfo,
  type DynamicBatcherOptions,
  type EnqueueOptions,
  type RunBatch,
} from './batcher-options.js';
import {
  type BatcherState,
  admissionRefusal,
  queuedCancelledError,
  queuedDeadlineError,
  shuttingDownError,
} from './admission.js';
import { type CancelSignal } from './cancel-signal.js';
import { type Clock, systemClock } from './clock.js';

interface Pending<TItem, TResult> extends QueuedRequest {
  readonly item: TItem;
  readonly signal: CancelSignal | undefined;
  readonly resolve: (result: TResult) => void;
  readonly reject: (error: ModelgateError) => void;
  release: () => void;
}

/**
 * A per-model dynamic batcher: queues requests, asks {@link decideNextBatch} when and what to run,
 * and runs batches through `runBatch` on up to `instances` at once.
 *
 * - A full queue refuses at once with QUEUE_FULL (`retryAfterSeconds: 1`).
 * - A queued request is rejected with DEADLINE_EXCEEDED by a clock timer at its deadline, and with
 *   CANCELLED when its AbortSignal fires; either way it leaves the queue and is never computed.
 * - A dispatched request cannot be recalled: from then on its deadline and signal are not
 *   watched here, and it settles with its batch (the transport enforces the caller's deadline).
 */
export class DynamicBatcher<TItem, TResult> {
  /** The limits in force, defaults filled in. */
  readonly limits: BatchLimits;
  private readonly runBatch: RunBatch<TItem, TResult>;
  private readonly instances: number;
  private readonly clock: Clock;
  private readonly onBatch: ((info: BatchInfo) => void) | undefined;
  private readonly name: string;
  private queue: Pending<TItem, TResult>[] = [];
  private inFlight = 0;
  private state: BatcherState = 'open';
  private pumping = false;
  /** Set while enqueueAll() queues its entries: the single decision comes after the last one. */
  private deferPump = false;
  private waitTimer: { readonly atMicros: number; readonly cancel: () => void } | undefined;
  private drainWaiters: (() => void)[] = [];

  constructor(options: DynamicBatcherOptions<TItem, TResult>) {
    this.limits = resolveBatchLimits(options.limits);
    this.runBatch = options.runBatch;
    this.instances = options.instances ?? 1;
    if (!Number.isSafeInteger(this.instances) || this.instances < 1) {
      throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'instances must be an integer >= 1', {
        field: 'runtime.instances',
      });
    }
    this.clock = options.clock ?? systemClock;
    this.onBatch = options.onBatch;
    this.name = options.name ?? 'model';
  }

  /** Requests waiting for a batch (not yet dispatched): the `modelgate_queue_depth` gauge. */
  get queueDepth(): number {
    return this.queue.length;
  }

  /** Batches running now (≤ instances). */
  get inFlightBatches(): number {
    return this.inFlight;
  }

  /**
   * Queues `item` and settles with its result once its batch ran. Refusals (full, draining,
   * closed, already expired or cancelled, bad options) come back as an already-rejected promise.
   */
  enqueue(item: TItem, options: EnqueueOptions = {}): Promise<TResult> {
    const now = this.clock.nowMicros();
    const refusal = admissionRefusal(this.name, this.state, this.queue.length, this.limits, options, now);
    if (refusal !== undefined) return Promise.reject(refusal);
    const timeoutMs =
      options.timeoutMs ?? (options.deadlineMicros === undefined ? this.limits.defaultTimeoutMs : undefined);
    const deadlineMicros = Math.min(
      options.deadlineMicros ?? Number.POSITIVE_INFINITY,
      timeoutMs === undefined ? Number.POSITIVE_INFINITY : now + timeoutMs * 1000,
    );
    if (deadlineMicros <= now) return Promise.reject(this.deadlineError());

    const promise = new Promise<TResult>((resolve, reject) => {
      const entry: Pending<TItem, TResult> = {
        item,
        tokens: options.tokens ?? 1,
        enqueuedAtMicros: now,
        deadlineMicros,
        batchKey: options.batchKey,
        signal: options.signal,
        resolve,
        reject,
        release: () => undefined,
      };
      const cancelTimer = Number.isFinite(deadlineMicros)
        ? this.clock.setTimer(deadlineMicros, () => this.drop(entry, this.deadlineError()))
        : () => undefined;
      const onAbort = (): void => this.drop(entry, this.cancelledError());
      options.signal?.addEventListener('abort', onAbort, { once: true });
      entry.release = () => {
        cancelTimer();
        options.signal?.removeEventListener('abort', onAbort);
      };
      this.queue.push(entry);
    });
    this.pump();
    return promise;
  }

  /**
   * Queues every entry, then decides once: the rows of one request (QA windows, ranked texts) can
   * share a batch even on an idle batcher, where enqueue() alone would send the first row out by
   * itself. Each promise settles as enqueue()'s would.
   */
  enqueueAll(entries: readonly { item: TItem; options?: EnqueueOptions }[]): Promise<TResult>[] {
    this.deferPump = true;
    try {
      return entries.map(({ item, options }) => this.enqueue(item, options));
    } finally {
      this.deferPump = false;
      this.pump();
    }
  }

  /**
   * Stops admitting (new requests get UNAVAILABLE), runs what is queued without waiting for
   * company, and resolves once the queue is empty and no batch runs.
   */
  drain(): Promise<void> {
    if (this.state === 'open') this.state = 'draining';
    const drained = new Promise<void>((resolve) => this.drainWaiters.push(resolve));
    this.pump();
    return drained;
  }

  /**
   * Stops admitting and rejects every queued request with UNAVAILABLE. Running batches finish and
   * settle their requests; `drain()` resolves once they have.
   */
  close(): void {
    this.state = 'closed';
    const queued = this.queue;
    this.queue = [];
    const error = shuttingDownError(this.name);
    for (const entry of queued) this.settleRejected(entry, error);
    this.pump();
  }

  /** Takes a still-queued request out with `error`; does nothing once it was dispatched. */
  private drop(entry: Pending<TItem, TResult>, error: ModelgateError): void {
    const at = this.queue.indexOf(entry);
    if (at < 0) return;
    this.queue.splice(at, 1);
    this.settleRejected(entry, error);
    this.pump();
  }

  /** Decides and dispatches until the policy says wait or idle; then resolves drains if done. */
  private pump(): void {
    if (this.pumping || this.deferPump) return; // re-entered, or enqueueAll() decides once at its end
    this.pumping = true;
    try {
      for (;;) {
        if (this.inFlight >= this.instances) {
          // Every instance busy: the policy can only say idle (rule 1), so skip the O(queue) scans
          // on every arrival under load. Expired requests leave by their own timers meanwhile.
          this.cancelWaitTimer();
          break;
        }
        const now = this.clock.nowMicros();
        this.dropDead(now);
        const decision = decideNextBatch(
          this.queue,
          this.limits,
          {
            freeInstances: this.instances - this.inFlight,
            busyInstances: this.inFlight,
            draining: this.state !== 'open',
          },
          now,
        );
        if (decision.kind === 'dispatch') {
          this.dispatch(decision.items, decision.reason, now);
          continue;
        }
        if (decision.kind === 'wait') this.armWaitTimer(decision.untilMicros);
        else this.cancelWaitTimer();
        break;
      }
    } finally {
      this.pumping = false;
    }
    this.resolveDrainedWaiters();
  }

  /** A timer or a listener may not have run yet at exactly the deadline: never dispatch those. */
  private dropDead(now: number): void {
    const isDead = (e: Pending<TItem, TResult>): boolean =>
      e.deadlineMicros <= now || e.signal?.aborted === true;
    if (!this.queue.some(isDead)) return;
    const dead = this.queue.filter(isDead);
    this.queue = this.queue.filter((e) => !isDead(e));
    for (const e of dead)
      this.settleRejected(e, e.signal?.aborted ? this.cancelledError() : this.deadlineError());
  }

  private dispatch(items: readonly Pending<TItem, TResult>[], reason: DispatchReason, now: number): void {
    const chosen = new Set(items);
    this.queue = this.queue.filter((entry) => !chosen.has(entry));
    for (const entry of items) entry.release();
    this.inFlight += 1;
    const sequenceLength = items.reduce((longest, e) => Math.max(longest, e.tokens), 0);
    const info: BatchInfo = {
      size: items.length,
      sequenceLength,
      tokens: items.reduce((sum, e) => sum + e.tokens, 0),
      paddedTokens: items.length * sequenceLength,
      queueMicros: items.map((e) => now - e.enqueuedAtMicros),
      reason,
      inFlightBatches: this.inFlight,
      queueDepth: this.queue.length,
    };
    try {
      this.onBatch?.(info);
    } catch {
      // An observability hook must not decide the fate of a batch.
    }
    let running: Promise<readonly TResult[]>;
    try {
      running = this.runBatch(
        items.map((e) => e.item),
        info,
      );
    } catch (error) {
      this.finishBatch(items, { error });
      return;
    }
    void Promise.resolve(running).then(
      (results) => this.finishBatch(items, { results }),
      (error: unknown) => this.finishBatch(items, { error }),
    );
  }

  private finishBatch(
    items: readonly Pending<TItem, TResult>[],
    outcome: { readonly results: readonly TResult[] } | { readonly error: unknown },
  ): void {
    this.inFlight -= 1;
    if ('error' in outcome) {
      const error = isModelgateError(outcome.error)
        ? outcome.error
        : new ModelgateError(ErrorCode.INTERNAL, `${this.name} batch failed`, {}, { cause: outcome.error });
      for (const entry of items) entry.reject(error);
    } else if (!Array.isArray(outcome.results) || outcome.results.length !== items.length) {
      const got = Array.isArray(outcome.results) ? outcome.results.length : typeof outcome.results;
      const error = new ModelgateError(
        ErrorCode.INTERNAL,
        `${this.name} batch returned ${got} results for ${items.length} requests`,
      );
      for (const entry of items) entry.reject(error);
    } else {
      items.forEach((entry, i) => entry.resolve(outcome.results[i] as TResult));
    }
    this.pump();
  }

  private settleRejected(entry: Pending<TItem, TResult>, error: ModelgateError): void {
    entry.release();
    entry.reject(error);
  }

  private armWaitTimer(atMicros: number): void {
    if (this.waitTimer?.atMicros === atMicros) return;
    this.cancelWaitTimer();
    const cancel = this.clock.setTimer(atMicros, () => {
      this.waitTimer = undefined;
      this.pump();
    });
    this.waitTimer = { atMicros, cancel };
  }

  private cancelWaitTimer(): void {
    this.waitTimer?.cancel();
    this.waitTimer = undefined;
  }

  private resolveDrainedWaiters(): void {
    if (this.state === 'open' || this.queue.length > 0 || this.inFlight > 0) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private deadlineError = (): ModelgateError => queuedDeadlineError(this.name);

  private cancelledError = (): ModelgateError => queuedCancelledError(this.name);
}
