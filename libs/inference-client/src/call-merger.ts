/**
 * Calls for the same model that arrive in the same event-loop turn go to the worker as one
 * ModelInfer (merge-calls.ts stacks and splits their rows). Each gRPC call costs the gateway and the
 * worker a fixed amount of CPU whatever its size; under load, when a burst of requests lands at
 * once, one call carries them all, and the worker's batcher still sees every row on its own. A lone
 * call goes out as it is, one `setImmediate` later.
 *
 * Each merged call keeps its own deadline and cancellation: the merged call runs until the latest
 * deadline and is cancelled only once every member has left; a member whose own deadline passes or
 * whose signal aborts is answered at once, as an unmerged call would be. A merged call the worker
 * refuses as a whole (INVALID_ARGUMENT, INTERNAL) is re-run member by member, so one bad call fails
 * alone; the other failures (UNAVAILABLE after its retry, QUEUE_FULL, a deadline) are every
 * member's.
 */
import { CancelSource } from '@modelgate/batching';
import { ErrorCode, GrpcStatus, MAX_TIMER_MS, isModelgateError } from '@modelgate/contracts';
import { type InferRequest, type InferResult } from './inference-types.js';
import { type MergeMember, type RowLayout, mergeInputs, mergeMember, splitOutputs } from './merge-calls.js';
import { workerCallToModelgateError } from './worker-errors.js';

/** Runs one call on a worker (the client's own path, with its retry and balancing). */
export type RunCall = (request: InferRequest) => Promise<InferResult>;

interface Waiting {
  request: InferRequest;
  member: MergeMember;
  startedAt: number;
  resolve: (result: InferResult) => void;
  reject: (error: unknown) => void;
}

interface Group {
  layout: RowLayout;
  rows: number;
  waiting: Waiting[];
}

/** Codes that may be one member's doing: the members are then re-run one by one. */
const RERUN_ALONE = new Set<string>([
  ErrorCode.INVALID_ARGUMENT,
  ErrorCode.INTERNAL,
  ErrorCode.PAYLOAD_TOO_LARGE,
]);

export class CallMerger {
  private readonly groups = new Map<string, Group>();
  private flushScheduled = false;

  constructor(
    private readonly runCall: RunCall,
    private readonly now: () => number,
  ) {}

  /** Runs `request`, merged with other calls of this turn that stack with it under `layout`. */
  infer(request: InferRequest, layout: RowLayout): Promise<InferResult> {
    const made = mergeMember(routeKey(request), request.inputs, layout);
    if (made === undefined || made.member.rows >= layout.maxRows || request.signal?.aborted) {
      return this.runCall(request);
    }
    return new Promise<InferResult>((resolve, reject) => {
      const { key, member } = made;
      let group = this.groups.get(key);
      if (group !== undefined && group.rows + member.rows > layout.maxRows) {
        this.flush(key);
        group = undefined;
      }
      if (group === undefined) {
        group = { layout, rows: 0, waiting: [] };
        this.groups.set(key, group);
      }
      group.waiting.push({ request, member, startedAt: this.now(), resolve, reject });
      group.rows += member.rows;
      if (group.rows >= layout.maxRows) this.flush(key);
      else this.scheduleFlush();
    });
  }

  /** Calls waiting for this turn to end (for tests and metrics). */
  get waitingCalls(): number {
    let count = 0;
    for (const group of this.groups.values()) count += group.waiting.length;
    return count;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      for (const key of [...this.groups.keys()]) this.flush(key);
    });
  }

  private flush(key: string): void {
    const group = this.groups.get(key);
    if (group === undefined) return;
    this.groups.delete(key);
    const [only] = group.waiting;
    if (group.waiting.length === 1 && only !== undefined) {
      this.runCall(only.request).then(only.resolve, only.reject);
      return;
    }
    this.runMerged(group.waiting, group.layout);
  }

  private runMerged(waiting: readonly Waiting[], layout: RowLayout): void {
    const first = waiting[0] as Waiting;
    const model = modelOf(first.request);
    // A CancelSource, not an AbortController: Node makes an AbortSignal for about 3 µs.
    const controller = new CancelSource();
    let open = waiting.length;
    const cleanups: (() => void)[] = [];
    const settled = waiting.map(() => false);
    // Once the merged call has ended there is nothing to cancel (an abort costs a DOMException).
    let ended = false;
    /** Ends member `index` (once), cancelling the merged call when no member is left. */
    const settle = (index: number, outcome: () => void): boolean => {
      if (settled[index]) return false;
      settled[index] = true;
      cleanups[index]?.();
      outcome();
      if (--open === 0 && !ended) controller.abort();
      return true;
    };
    const latest = Math.max(...waiting.map((entry) => entry.request.deadlineEpochMs));
    waiting.forEach((entry, index) => {
      cleanups[index] = watchMember(entry.request, latest, (status, details) =>
        settle(index, () => entry.reject(workerCallToModelgateError(status, details, model))),
      );
    });
    const rerunAlone = () => {
      waiting.forEach((entry, index) => {
        if (settled[index]) return;
        settled[index] = true;
        cleanups[index]?.();
        this.runCall(entry.request).then(entry.resolve, entry.reject);
      });
    };
    if (settled.every(Boolean)) return; // every member left before the call went out
    let merged: ReturnType<typeof mergeInputs>;
    try {
      merged = mergeInputs(waiting.map((entry) => entry.member));
    } catch {
      rerunAlone();
      return;
    }
    // The first member's id and how many rode along: bounded, whatever maxBatchSize is.
    const id = `${first.request.id ?? ''}+${waiting.length - 1}`;
    const request: InferRequest = {
      ...first.request,
      id,
      inputs: merged.inputs,
      deadlineEpochMs: latest,
      metadata: { ...first.request.metadata, 'x-request-id': id },
      signal: controller.signal,
    };
    this.runCall(request).then(
      (result) => {
        ended = true;
        let parts: ReturnType<typeof splitOutputs>;
        try {
          parts = splitOutputs(result.outputs, merged.layout, layout.sequenceOutputs);
        } catch {
          rerunAlone();
          return;
        }
        waiting.forEach((entry, index) => {
          settle(index, () =>
            entry.resolve({
              ...result,
              id: entry.request.id ?? '',
              outputs: parts[index] ?? {},
              durationMs: this.now() - entry.startedAt,
            }),
          );
        });
      },
      (error: unknown) => {
        ended = true;
        if (isModelgateError(error) && RERUN_ALONE.has(error.code)) {
          rerunAlone();
          return;
        }
        waiting.forEach((entry, index) => settle(index, () => entry.reject(error)));
      },
    );
  }
}

/**
 * Watches one member of a merged call: its signal, and its own deadline when the merged call's is
 * later. `leave` gets the gRPC status an unmerged call would have ended with. Returns the cleanup.
 */
function watchMember(
  request: InferRequest,
  mergedDeadline: number,
  leave: (status: number, details: string) => void,
): () => void {
  const { signal } = request;
  const onAbort = () => leave(GrpcStatus.CANCELLED, 'the caller cancelled the call');
  if (signal?.aborted) {
    // Aborted while it waited for the turn to end: no 'abort' event will come.
    onAbort();
    return () => {};
  }
  signal?.addEventListener('abort', onAbort, { once: true });
  const delayMs = request.deadlineEpochMs - Date.now();
  // A deadline beyond what a Node timer keeps (it would fire after 1 ms) is as good as none, as
  // grpc-js treats it: the merged call's own deadline still ends the wait.
  const timer =
    request.deadlineEpochMs < mergedDeadline && delayMs <= MAX_TIMER_MS
      ? setTimeout(() => leave(GrpcStatus.DEADLINE_EXCEEDED, ''), delayMs)
      : undefined;
  return () => {
    signal?.removeEventListener('abort', onAbort);
    if (timer !== undefined) clearTimeout(timer);
  };
}

/** What calls must share besides their tensors to merge: model, workers, outputs, metadata. */
function routeKey(request: InferRequest): string {
  const metadata = Object.entries(request.metadata ?? {})
    .filter(([key]) => key !== 'x-request-id')
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify([
    request.modelName,
    request.modelVersion ?? '',
    request.addresses ?? request.workerGroup ?? '',
    request.outputs ?? [],
    metadata,
  ]);
}

function modelOf(request: InferRequest): string {
  return request.modelVersion ? `${request.modelName}:${request.modelVersion}` : request.modelName;
}
