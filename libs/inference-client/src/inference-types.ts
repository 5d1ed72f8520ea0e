/** What an InferenceClient takes and gives: its options, one call, its answer, a worker's status. */
import { type CancelSignal } from '@modelgate/batching';
import { type DecodedInferResponse, type InferMessageFields, type WorkerTimings } from './infer-codec.js';
import { type RowLayout } from './merge-calls.js';
import { type OutlierEjectorOptions, type WorkerHealth } from './outlier-ejector.js';
import { type RetryBudgetOptions } from './retry-budget.js';
import { type StallWatchOptions } from './stall-watch.js';
import { type LocalWorkerEndpoint } from './local-worker-channel.js';
import { type WorkerChannelFactory } from './worker-channel.js';
import { type WorkerGroupAddresses } from './worker-pool.js';

/** How an InferenceClient balances, retries and connects. */
export interface InferenceClientOptions {
  /** Worker groups to start with, e.g. a snapshot's `workerGroups`. @defaultValue [] */
  workerGroups?: Iterable<WorkerGroupAddresses>;
  /** Attempts per request, the first included; each retry goes to a worker not tried yet. @defaultValue 2 */
  maxAttempts?: number;
  /** The retry budget. @defaultValue `{ ratio: 0.2, minRetries: 3, windowMs: 1000 }` */
  retryBudget?: RetryBudgetOptions;
  /**
   * Outlier ejection: of workers whose connections fail, and of workers that answer nothing for
   * `stallMs` while another answers (stall-watch.ts).
   * @defaultValue `{ consecutiveFailures: 3, baseEjectionMs: 5000, maxEjectionMs: 60000, stallMs: 3000 }`
   */
  outlierEjection?: OutlierEjectorOptions & StallWatchOptions;
  /** Timeout of the readiness calls (ServerReady, ModelReady), in ms. @defaultValue 1000 */
  healthTimeoutMs?: number;
  /** Whether calls given a `merge` layout may share a ModelInfer (call-merger.ts). @defaultValue true */
  mergeCalls?: boolean;
  /** Monotonic clock in ms, for ejection, the retry budget and durations. @defaultValue `performance.now` */
  now?: () => number;
  /** Makes the channel of an address (unit tests pass fakes). @defaultValue a GrpcWorkerChannel */
  createChannel?: WorkerChannelFactory;
  /**
   * A worker in this process (a co-located gateway): calls to its address take the in-process
   * transport (local-worker-channel.ts) instead of gRPC, and its worker group always lists it,
   * whatever the snapshot or GATEWAY_WORKER_ADDRESSES say of that group. Discovery finds it by
   * its heartbeat like any worker. @defaultValue none
   */
  localWorker?: LocalWorkerEndpoint;
}

/** One inference call. */
export interface InferRequest extends InferMessageFields {
  /**
   * Absolute deadline, ms since the epoch (`Date.now()` time). Absolute so that a retry shares
   * the budget of the first attempt instead of starting a fresh one; sent to the worker as
   * `grpc-timeout`, where it bounds the queue wait too.
   */
  deadlineEpochMs: number;
  /** Worker group (see `setWorkerGroups`) to send the call to; ignored when `addresses` is given. */
  workerGroup?: string;
  /** Exact worker addresses to choose from, instead of a group. */
  addresses?: readonly string[];
  /** gRPC metadata for the worker, e.g. `{ 'x-request-id': id }`. */
  metadata?: Readonly<Record<string, string>>;
  /** Aborting it cancels the call (CANCELLED); the gateway ties it to the HTTP request. */
  signal?: CancelSignal;
  /**
   * Lets the call share one ModelInfer with other calls of this event-loop turn that stack with it
   * (call-merger.ts); absent: the call goes alone.
   */
  merge?: RowLayout;
}

/** A successful inference call; `queueMs`/`computeMs` when the worker reported them. */
export interface InferResult extends DecodedInferResponse, WorkerTimings {
  /** Address of the worker that answered. */
  worker: string;
  /** Attempts made: 1, or 2 after a retry. */
  attempts: number;
  /** Time from the call to the decoded answer, all attempts included, in ms. */
  durationMs: number;
}

/** What the client knows about one worker. */
export interface WorkerStatus extends WorkerHealth {
  address: string;
  /** Calls running on it now. */
  outstanding: number;
  /** Calls sent to it since its channel was created. */
  calls: number;
}
