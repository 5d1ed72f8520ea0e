/**
 * One model's path from decoded request to outputs: rows into the dynamic batcher, batches onto
 * an idle session instance, outputs cut back per request.
 *
 * A request with n rows becomes n batcher items, so `maxBatchSize` bounds rows, not calls.
 * Token models (int64 [batch, sequence] inputs plus an `attention_mask`) batch rows of different
 * lengths by right-padding; padding is exact because the mask hides it. Any other model only
 * batches rows whose non-batch dims match (the batch key).
 *
 * Each batch runs where `chooseExecutionPath` (libs/batching execution-path.ts) says: the solo
 * session when the batch finds the model idle (inline on this thread when the solo session is the
 * inline one and the batch is short), else an instance.
 */
import {
  type BatchInfo,
  type BatchLimits,
  type CancelSignal,
  CancelSource,
  type ExecutionChoice,
  type ExecutionPath,
  type InlineLimits,
  RunTimeEstimator,
  chooseExecutionPath,
  type NumericArray,
  type TensorData,
  DynamicBatcher,
  batchSignature,
  sequenceAxisOf,
  splitBatchOutput,
} from '@modelgate/batching';
import { ErrorCode, MAX_TIMER_MS, ModelgateError, isTokenModel } from '@modelgate/contracts';
import {
  type OnnxSession,
  type SessionRun,
  type WorkerTensor,
} from '../model-loading/onnx-session.adapter.js';
import { joinRowOutputs, splitRequestRows } from './request-rows.js';
import { type RowItem, concatRows, outputsWanted, packRows } from './batch-feeds.js';
import { SessionPool } from './session-pool.js';
import { runFailure } from './failure-code.js';

interface RowResult {
  outputs: Record<string, TensorData>;
  /** Where its batch ran. */
  path?: ExecutionPath;
  /** Set when this row alone failed (its batch-mates were answered). */
  error?: unknown;
  /** Time the row waited for its batch, in µs. */
  queueMicros: number;
  /** Time its batch spent in onnxruntime, in µs. */
  computeMicros: number;
}

/** A request's outputs, [rows, ...] as if unbatched, and where its time went. */
export interface InferResult {
  outputs: Record<string, WorkerTensor>;
  /** The longest queue wait among its rows, in µs. */
  queueMicros: number;
  /** The longest batch compute among its rows, in µs. */
  computeMicros: number;
}

/** What a finished batch reports, for metrics. */
export interface BatchTiming {
  rows: number;
  computeSeconds: number;
  /** Where it ran: inline (this thread), the solo session's thread, or an instance. */
  path: ExecutionPath;
}

/** How the runner treats its solo session. */
export interface SoloOptions {
  /** The solo session (a thread per core), inline (`runsInline`) or on a thread of its own. */
  session: OnnxSession;
  /** Limits of inline runs (used when the session runs inline). */
  inline: InlineLimits;
  /** A timed run of the warm-up request on it, which seeds its run-time estimate. */
  calibration?: { units: number; micros: number } | undefined;
}

/** What a runner reports to its owner. */
export interface RunnerHooks {
  onBatch?: (info: BatchInfo) => void;
  onComputed?: (timing: BatchTiming) => void;
  /** A session's thread died (it is out of the pool for good). */
  onSessionLost?: (reason: string) => void;
}

/** Per-call options of {@link ModelRunner.infer}. */
export interface InferOptions {
  /** Absolute deadline (ms since epoch): the batcher refuses the request once it passes in the queue. */
  deadlineEpochMs?: number;
  /**
   * Whether to answer DEADLINE_EXCEEDED at `deadlineEpochMs` while the request's batch computes too.
   * Not needed for a gRPC deadline, which grpc-js itself ends the call at; needed for a deadline of
   * modelgate's own (the model's default, Triton's `timeout` parameter).
   */
  answerAtDeadline?: boolean;
  /** Fires when the caller goes away. */
  signal?: CancelSignal;
  /** Test hook (WORKER_TEST_HOOKS only): hold the batch this long. */
  holdMs?: number;
  /** Test hook (WORKER_TEST_HOOKS only): kill the session thread that runs the batch. */
  crashSession?: boolean;
}

/**
 * `work`, or DEADLINE_EXCEEDED once `deadlineEpochMs` passes: a dispatched batch cannot be recalled,
 * so past its deadline a request is answered without waiting for it (the batch's other rows, and
 * its result, are unaffected). The batcher already refuses a request whose deadline passes queued.
 */
async function withinDeadline<T>(work: Promise<T>, deadlineEpochMs: number | undefined, modelId: string) {
  const delayMs = deadlineEpochMs === undefined ? Infinity : deadlineEpochMs - Date.now();
  // Beyond what a Node timer keeps, a deadline is as good as none (grpc-js treats it so too).
  if (!(delayMs <= MAX_TIMER_MS)) return work;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ModelgateError(ErrorCode.DEADLINE_EXCEEDED, `deadline exceeded while ${modelId} computed`),
        ),
      Math.max(0, delayMs),
    );
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Failures of a run onnxruntime refused while its session lived on (runBatch retries their rows alone). */
const RUN_FAILURES = new WeakSet<object>();

export class ModelRunner {
  private readonly batcher: DynamicBatcher<RowItem, RowResult>;
  private readonly pool: SessionPool<OnnxSession>;
  private readonly tokenModel: boolean;
  /** The solo session's run time per unit (token, or row), from its runs. */
  private readonly soloRunTime = new RunTimeEstimator();
  private readonly inlineLimits: InlineLimits;

  /** `solo`: a session with a thread per core for batches that find the model idle (session-pool.ts). */
  constructor(
    private readonly modelId: string,
    private readonly sessions: readonly OnnxSession[],
    limits: BatchLimits,
    private readonly hooks: RunnerHooks = {},
    solo?: SoloOptions,
  ) {
    const first = sessions[0];
    if (!first) throw new Error(`model ${modelId} has no sessions`);
    this.pool = new SessionPool(sessions, solo?.session);
    this.inlineLimits = solo?.inline ?? { maxInlineMicros: 0 };
    if (solo?.calibration) this.soloRunTime.observe(solo.calibration.units, solo.calibration.micros);
    this.tokenModel = isTokenModel(first.inputs);
    this.batcher = new DynamicBatcher<RowItem, RowResult>({
      name: modelId,
      limits,
      instances: sessions.length,
      onBatch: hooks.onBatch,
      runBatch: async (items, info) => {
        // Decided at dispatch (a test hold may delay the run, not the decision).
        const choice = this.choosePath(items, info);
        const results = await this.runBatch(items, choice, info.paddedTokens);
        const path = choice.path;
        hooks.onComputed?.({
          rows: items.length,
          computeSeconds: (results[0]?.computeMicros ?? 0) / 1e6,
          path: results[0]?.path ?? path,
        });
        return results;
      },
    });
  }

  /** Requests waiting for a batch. */
  get queueDepth(): number {
    return this.batcher.queueDepth;
  }

  /** Batches being computed now. */
  get inFlightBatches(): number {
    return this.batcher.inFlightBatches;
  }

  /** Runs one request's rows through the batcher; outputs are [rows, ...] like an unbatched run. */
  async infer(
    inputs: Record<string, WorkerTensor>,
    rows: number,
    outputNames: readonly string[] | undefined,
    options: InferOptions = {},
  ): Promise<InferResult> {
    const limits = this.batcher.limits;
    // More rows than the queue holds would be refused as full forever: no retry can get it in.
    if (rows > limits.maxQueueSize) {
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `model ${this.modelId}: a request of ${rows} rows exceeds the ${limits.maxQueueSize} its queue holds ` +
          '(batching.maxQueueSize): send fewer rows per request',
      );
    }
    if (this.batcher.queueDepth + rows > limits.maxQueueSize) {
      throw new ModelgateError(
        ErrorCode.QUEUE_FULL,
        `model ${this.modelId}: queue full (${this.batcher.queueDepth} of ${limits.maxQueueSize} waiting)`,
        { retryAfterSeconds: 1 },
      );
    }
    const timeoutMs =
      options.deadlineEpochMs !== undefined ? Math.max(options.deadlineEpochMs - Date.now(), 0) : undefined;
    const requestRows = splitRequestRows(inputs, rows, this.tokenModel);
    const datatypes: Record<string, string> = {};
    for (const name in inputs) datatypes[name] = inputs[name]?.datatype ?? 'FP32';
    const enqueuedAtMs = performance.now();
    const holdMs = options.holdMs ?? 0;
    const crashSession = options.crashSession ?? false;
    // One failing row (deadline, queue) abandons its siblings instead of computing them; a lone
    // row needs no second controller, so the common case costs one listener, not a signal chain.
    const abandon = rows > 1 ? new CancelSource() : undefined;
    const forward = abandon && options.signal ? () => abandon.abort() : undefined;
    if (forward) options.signal?.addEventListener('abort', forward, { once: true });
    const signal = abandon?.signal ?? options.signal;
    try {
      // Queued together, decided once: a request's rows share a batch even on an idle worker.
      const pending = this.batcher.enqueueAll(
        requestRows.map((row) => ({
          item: { inputs: row.inputs, datatypes, outputNames, holdMs, crashSession, enqueuedAtMs },
          options: {
            tokens: row.tokens,
            ...(signal ? { signal } : {}),
            ...(timeoutMs !== undefined ? { timeoutMs } : {}),
            ...(this.tokenModel ? {} : { batchKey: batchSignature(row.inputs) }),
          },
        })),
      );
      if (abandon) for (const row of pending) row.catch(() => abandon.abort());
      const rows = Promise.all(pending);
      const rowResults = options.answerAtDeadline
        ? await withinDeadline(rows, options.deadlineEpochMs, this.modelId)
        : await rows;
      const failed = rowResults.find((row) => row.error !== undefined);
      if (failed) throw failed.error;
      const width = this.tokenModel ? inputs.attention_mask?.dims[1] : undefined;
      let queueMicros = 0;
      let computeMicros = 0;
      for (const row of rowResults) {
        queueMicros = Math.max(queueMicros, row.queueMicros);
        computeMicros = Math.max(computeMicros, row.computeMicros);
      }
      return {
        outputs: joinRowOutputs(
          rowResults.map((row) => row.outputs),
          outputNames,
          this.sessions[0]?.outputs ?? [],
          width,
        ),
        queueMicros,
        computeMicros,
      };
    } finally {
      if (forward) options.signal?.removeEventListener('abort', forward);
    }
  }

  /** Stops admitting and resolves once every queued and running request has finished. */
  drain(): Promise<void> {
    return this.batcher.drain();
  }

  /** Rejects whatever is still queued; used after a drain timeout. */
  close(): void {
    this.batcher.close();
  }

  /** Where a batch just dispatched runs (execution-path.ts). */
  private choosePath(items: readonly RowItem[], info: BatchInfo): ExecutionChoice {
    const solo = this.pool.soloSession;
    return chooseExecutionPath(
      {
        solo: solo === undefined ? 'none' : this.pool.soloIdle ? 'idle' : 'busy',
        soloInline: solo?.runsInline === true,
        otherBatchesRunning: info.inFlightBatches - 1,
        rowsQueued: info.queueDepth,
        inlineAllowed: !items.some((item) => item.crashSession),
        estimatedMicros: this.soloRunTime.estimate(info.paddedTokens),
      },
      this.inlineLimits,
    );
  }

  /** `units`: the batch's padded tokens (token models) or rows, for the solo session's estimate. */
  private async runBatch(
    items: readonly RowItem[],
    choice: ExecutionChoice,
    units: number,
  ): Promise<RowResult[]> {
    // The solo session is taken at once, so a batch dispatched during this one's hold goes elsewhere.
    const session = this.pool.take(choice.path !== 'instance');
    if (!session)
      throw new ModelgateError(ErrorCode.INTERNAL, `model ${this.modelId}: no idle session instance`);
    const holdMs = Math.max(...items.map((item) => item.holdMs));
    if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
    try {
      const results = await this.runOnce(items, session);
      // The solo session's runs teach its estimate; so does a lone batch kept off it as too long (an
      // instance has at most its threads, so the estimate errs long), or it would never come back.
      if (this.pool.isSolo(session) || choice.reason === 'too-long')
        this.soloRunTime.observe(units, results[0]?.computeMicros ?? NaN);
      return results;
    } catch (error) {
      if (items.length === 1 || !RUN_FAILURES.has(error as object)) throw error;
      // onnxruntime refused the batch (an index out of range, a value it cannot take): one bad row
      // must not fail its batch-mates, so each runs alone and only the failing ones fail.
      const results: RowResult[] = [];
      for (const item of items) {
        const alone = this.pool.take(false);
        if (!alone) throw error;
        try {
          results.push(...(await this.runOnce([item], alone)));
        } catch (alone) {
          results.push({ outputs: {}, queueMicros: 0, computeMicros: 0, error: alone });
        }
      }
      return results;
    }
  }

  /** Runs `items` on `session`, taken from the pool by the caller and given back here. */
  private async runOnce(items: readonly RowItem[], session: OnnxSession): Promise<RowResult[]> {
    const startedAt = performance.now();
    let packed: ReturnType<typeof packRows>;
    try {
      packed = this.tokenModel ? packRows(items) : concatRows(items);
    } catch (error) {
      this.pool.give(session);
      throw error;
    }
    const { feeds, layout } = packed;
    let run: SessionRun;
    try {
      if (items.some((item) => item.crashSession)) session.crashForTest();
      run = await session.run(feeds, outputsWanted(items));
    } catch (error) {
      const failure = runFailure(this.modelId, error, session.lostReason === undefined);
      // A run the session refused may be one row's fault; a lost session is every row's.
      if (session.lostReason === undefined) RUN_FAILURES.add(failure);
      throw failure;
    } finally {
      // A session whose thread died never runs again: it leaves the pool, and the model with it.
      if (session.lostReason === undefined) this.pool.give(session);
      else this.hooks.onSessionLost?.(session.lostReason);
    }

    const path: ExecutionPath = !this.pool.isSolo(session)
      ? 'instance'
      : session.runsInline === true
        ? 'inline'
        : 'solo';
    const perRow: RowResult[] = items.map((item) => ({
      outputs: {},
      path,
      queueMicros: Math.round((startedAt - item.enqueuedAtMs) * 1000),
      computeMicros: run.runMicros,
    }));
    for (const declared of session.outputs) {
      const output = run.outputs[declared.name];
      if (!output) continue;
      const slices = splitBatchOutput(output.data as NumericArray, output.dims, layout, {
        name: declared.name,
        sequenceAxis: sequenceAxisOf(declared.dims),
      });
      slices.forEach((slice, index) => {
        const row = perRow[index];
        if (row) row.outputs[declared.name] = slice;
      });
    }
    return perRow;
  }
}
