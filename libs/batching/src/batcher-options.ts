import { type BatchLimits } from './batch-limits.js';
import { type CancelSignal } from './cancel-signal.js';
import { type DispatchReason } from './batch-policy.js';
import { type Clock } from './clock.js';

/** What the batcher tells `runBatch` and `onBatch` about a batch as it leaves the queue. */
export interface BatchInfo {
  /** Requests in the batch. */
  readonly size: number;
  /** The longest request, in tokens: the length every request is padded to. */
  readonly sequenceLength: number;
  /** Sum of the requests' own tokens. */
  readonly tokens: number;
  /** size × sequenceLength: what the batch costs once padded. */
  readonly paddedTokens: number;
  /** How long each request waited in the queue, in µs, in batch order. */
  readonly queueMicros: readonly number[];
  /** Why it left now (see batch-policy.ts). */
  readonly reason: DispatchReason;
  /** Batches running, this one included. */
  readonly inFlightBatches: number;
  /** Requests still waiting after this batch left. */
  readonly queueDepth: number;
}

/** Runs one batch: one result per item, in the same order. */
export type RunBatch<TItem, TResult> = (
  items: readonly TItem[],
  info: BatchInfo,
) => Promise<readonly TResult[]>;

/** How a `DynamicBatcher` is set up; one batcher per loaded model. */
export interface DynamicBatcherOptions<TItem, TResult> {
  /** Runs a batch on a model instance; its rejection rejects every item of the batch. */
  readonly runBatch: RunBatch<TItem, TResult>;
  /** The model's `batching` limits; missing fields take `DEFAULT_BATCH_LIMITS`. */
  readonly limits?: Partial<BatchLimits>;
  /**
   * Batches allowed to run at once: the model's instances (`runtime.instances`).
   * @defaultValue 1
   */
  readonly instances?: number;
  /**
   * Time and timers.
   * @defaultValue systemClock
   */
  readonly clock?: Clock;
  /** Called as each batch leaves the queue, before `runBatch` (metrics). Must not throw; errors are ignored. */
  readonly onBatch?: (info: BatchInfo) => void;
  /**
   * Names the model in error messages.
   * @defaultValue 'model'
   */
  readonly name?: string;
}

/** Per-request options of `DynamicBatcher.enqueue`. */
export interface EnqueueOptions {
  /**
   * The request's sequence length in tokens; 1 for models without a sequence axis.
   * @defaultValue 1
   */
  readonly tokens?: number;
  /**
   * Milliseconds the caller allows from now (e.g. a gRPC deadline minus `Date.now()`).
   * @defaultValue limits.defaultTimeoutMs, unless `deadlineMicros` is given
   */
  readonly timeoutMs?: number;
  /** Absolute deadline on the batcher's clock, in µs; with `timeoutMs` too, the earlier wins. */
  readonly deadlineMicros?: number;
  /**
   * Fires when the caller gives up; a request still queued is then dropped with CANCELLED. An
   * AbortSignal will do; a CancelSource is cheaper to make per request.
   */
  readonly signal?: CancelSignal;
  /**
   * Only requests with equal keys share a batch, e.g. a shape signature for models batched by
   * concatenation (see `batchSignature`).
   * @defaultValue undefined (all requests may share)
   */
  readonly batchKey?: string;
}
