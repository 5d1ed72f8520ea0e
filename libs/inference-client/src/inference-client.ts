import { type CancelSignal } from '@modelgate/batching';
import { ErrorCode, GrpcStatus, ModelgateError } from '@modelgate/contracts';
import { type GenerateCall, type GenerateRequest, startGeneration } from './generate-call.js';
import { CallMerger } from './call-merger.js';
import { GrpcWorkerChannel } from './grpc-worker-channel.js';
import { type LocalWorkerEndpoint, LocalWorkerChannel } from './local-worker-channel.js';
import { decodeInferResponse, encodeInferRequest, workerTimings } from './infer-codec.js';
import {
  type InferRequest,
  type InferResult,
  type InferenceClientOptions,
  type WorkerStatus,
} from './inference-types.js';
import { OutlierEjector } from './outlier-ejector.js';
import { type WorkerPick, pickWorker } from './pick-worker.js';
import { RetryBudget } from './retry-budget.js';
import { StallGuard } from './stall-guard.js';
import { StallWatch } from './stall-watch.js';
import { WorkerCallError, type WorkerCallOptions } from './worker-channel.js';
import {
  isRetryableStatus,
  isWorkerFailureStatus,
  noReadyWorkerError,
  workerCallToModelgateError,
} from './worker-errors.js';
import { type WorkerGroupAddresses, WorkerPool } from './worker-pool.js';

export type { InferRequest, InferResult, InferenceClientOptions, WorkerStatus } from './inference-types.js';

/**
 * The gateway's client to workers (DESIGN §3.2): one persistent gRPC channel per worker address,
 * least-outstanding balancing (by rows: a call counts its rows), the caller's deadline on every call, one retry on
 * another worker for UNAVAILABLE within a retry budget, and ejection of workers that keep
 * failing or stop answering (their owed calls then fail over). Errors come back as ModelgateError.
 */
export class InferenceClient {
  private readonly pool: WorkerPool;
  private readonly ejector: OutlierEjector;
  private readonly stalls: StallGuard;
  private readonly budget: RetryBudget;
  /** When each failing worker's streak of connection failures began (cleared by an answer). */
  private readonly failingSince = new Map<string, number>();
  private readonly maxAttempts: number;
  private readonly healthTimeoutMs: number;
  private readonly now: () => number;
  private readonly merger: CallMerger | undefined;
  private readonly localWorker: LocalWorkerEndpoint | undefined;
  private turn = 0;

  constructor(options: InferenceClientOptions = {}) {
    this.now = options.now ?? (() => performance.now());
    const local = (this.localWorker = options.localWorker);
    const remote = options.createChannel ?? ((address: string) => new GrpcWorkerChannel(address));
    this.pool = new WorkerPool((address) =>
      local !== undefined && address === local.address ? new LocalWorkerChannel(local) : remote(address),
    );
    this.ejector = new OutlierEjector(options.outlierEjection, this.now);
    this.stalls = new StallGuard(new StallWatch(options.outlierEjection, this.now), this.ejector, (address) =>
      this.failingSince.set(address, this.now()),
    );
    this.budget = new RetryBudget(options.retryBudget, this.now);
    this.maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? 2));
    this.healthTimeoutMs = options.healthTimeoutMs ?? 1000;
    if (options.mergeCalls !== false) {
      this.merger = new CallMerger((request) => this.inferAlone(request), this.now);
    }
    this.setWorkerGroups(options.workerGroups ?? []);
  }

  /**
   * Replaces the worker groups (config sync calls this on every snapshot). Channels of addresses
   * that stay are kept; the others close once their running calls end.
   */
  setWorkerGroups(groups: Iterable<WorkerGroupAddresses>): void {
    const local = this.localWorker;
    const all = [...groups].map((group) => ({
      name: group.name,
      addresses: this.withLocal(group.name, group.addresses),
    }));
    if (local !== undefined && !all.some((group) => group.name === local.workerGroup))
      all.push({ name: local.workerGroup, addresses: [local.address] });
    this.pool.setGroups(all);
    this.retainHealth();
  }

  /** Sets one group's addresses (an empty list removes it), e.g. from discovery. */
  setWorkerGroup(name: string, addresses: readonly string[]): void {
    this.pool.setGroup(name, this.withLocal(name, addresses));
    this.retainHealth();
  }

  /** `addresses`, plus the local worker's where `group` is its worker group. */
  private withLocal(group: string, addresses: readonly string[]): readonly string[] {
    const local = this.localWorker;
    if (local === undefined || group !== local.workerGroup || addresses.includes(local.address))
      return addresses;
    return [...addresses, local.address];
  }

  /** The addresses of a worker group (empty when unknown). */
  addressesOf(workerGroup: string): readonly string[] {
    return this.pool.addressesOf(workerGroup);
  }

  /**
   * Runs ModelInfer on the least loaded worker of the group. UNAVAILABLE (including a connection
   * refused or dropped before the answer) is retried once on another worker while the retry
   * budget allows; every other failure is final. Rejects with a ModelgateError: UNAVAILABLE
   * (no ready worker), QUEUE_FULL (retryAfterSeconds 1), DEADLINE_EXCEEDED, INVALID_ARGUMENT, ...
   * With `merge`, the call may share its ModelInfer with others of the same turn.
   */
  async infer(request: InferRequest): Promise<InferResult> {
    const { merge, ...alone } = request;
    if (merge === undefined || this.merger === undefined) return this.inferAlone(alone);
    return this.merger.infer(alone, merge);
  }

  private async inferAlone(request: InferRequest): Promise<InferResult> {
    const startedAt = this.now();
    const model = request.modelVersion ? `${request.modelName}:${request.modelVersion}` : request.modelName;
    if (!Number.isFinite(request.deadlineEpochMs)) {
      throw new ModelgateError(ErrorCode.INTERNAL, 'an inference call needs a finite deadlineEpochMs');
    }
    if (this.pool.isClosed) throw new ModelgateError(ErrorCode.UNAVAILABLE, 'the inference client is closed');
    const addresses = candidates(request, this.pool);
    if (addresses.length === 0) throw noReadyWorkerError(model);
    const message = encodeInferRequest(request);
    const rows = request.inputs[0]?.dims[0] ?? 1;
    this.budget.recordRequest();
    const tried = new Set<string>();
    for (let attempt = 1; ; attempt++) {
      const pick = this.pick(addresses, tried);
      if (pick === undefined) throw noReadyWorkerError(model);
      tried.add(pick.address);
      const dispatchedAt = this.now();
      const owed = this.stalls.beginAttempt(pick.address, request.signal);
      const callOptions: WorkerCallOptions = {
        deadlineEpochMs: request.deadlineEpochMs,
        metadata: request.metadata,
        signal: owed.signal,
      };
      try {
        const response = await this.pool.run(
          pick.address,
          (channel) => channel.modelInfer(message, callOptions),
          rows,
        );
        owed.end(GrpcStatus.OK);
        this.recordOutcome(pick.address, GrpcStatus.OK);
        const decoded = decodeInferResponse(response);
        return {
          ...decoded,
          ...workerTimings(decoded.parameters),
          worker: pick.address,
          attempts: attempt,
          durationMs: this.now() - startedAt,
        };
      } catch (error) {
        owed.end(error instanceof WorkerCallError ? error.status : GrpcStatus.UNKNOWN, String(error));
        if (!(error instanceof WorkerCallError)) throw error;
        // Cancelled because the worker stalled (and was ejected): a connection failure in effect.
        const status = owed.stalled ? GrpcStatus.UNAVAILABLE : error.status;
        const details = owed.stalled ? `worker ${pick.address} stopped answering` : error.details;
        if (!owed.stalled) this.recordOutcome(pick.address, status);
        if (!this.mayRetry(status, attempt, addresses, tried, request, pick.address, dispatchedAt)) {
          throw workerCallToModelgateError(status, details, model, error);
        }
      }
    }
  }

  /**
   * Starts ModelGenerate on the least loaded worker of the group and resolves once its first
   * tokens arrived; the worker counts as loaded until the stream ends or is cancelled. Retries
   * like `infer`, but only before the first message. Rejects (and the stream throws) with a
   * ModelgateError mapped like `infer`'s.
   */
  generate(request: GenerateRequest): Promise<GenerateCall> {
    if (this.pool.isClosed) {
      return Promise.reject(new ModelgateError(ErrorCode.UNAVAILABLE, 'the inference client is closed'));
    }
    const host = {
      now: this.now,
      recordRequest: () => this.budget.recordRequest(),
      pick: (addresses: readonly string[], tried: ReadonlySet<string>) => this.pick(addresses, tried),
      acquire: (address: string) => {
        this.stalls.dispatched(address);
        return this.pool.acquire(address);
      },
      recordOutcome: (address: string, status: number) => this.recordOutcome(address, status),
      settle: (address: string, status: number, details?: string) =>
        this.stalls.settle(address, status, details),
      spoke: (address: string) => this.stalls.spoke(address),
      mayRetry: this.mayRetry.bind(this),
    };
    return startGeneration(host, request, candidates(request, this.pool));
  }

  /** ServerReady on one worker; false when it says no or cannot be reached in time. */
  async serverReady(address: string, timeoutMs = this.healthTimeoutMs): Promise<boolean> {
    if (this.pool.isClosed) return false;
    const options = { deadlineEpochMs: Date.now() + timeoutMs };
    return this.pool.run(address, (channel) => channel.serverReady(options)).catch(() => false);
  }

  /** ModelReady on one worker (`version` empty: the server's pick); false on any failure. */
  async modelReady(
    address: string,
    name: string,
    version = '',
    timeoutMs = this.healthTimeoutMs,
  ): Promise<boolean> {
    if (this.pool.isClosed) return false;
    const options = { deadlineEpochMs: Date.now() + timeoutMs };
    return this.pool.run(address, (channel) => channel.modelReady(name, version, options)).catch(() => false);
  }

  /** True when some worker of the group says the model is ready (the gateway's readiness). */
  async hasReadyWorker(workerGroup: string, name: string, version = ''): Promise<boolean> {
    const answers = this.pool
      .addressesOf(workerGroup)
      .map((address) => this.modelReady(address, name, version));
    return (await Promise.all(answers)).some(Boolean);
  }

  /** Per-worker load and health, for metrics and status pages. */
  workerStatus(): WorkerStatus[] {
    const counts = this.pool.counts();
    const addresses = new Set([...this.pool.listedAddresses(), ...counts.keys()]);
    return [...addresses].sort().map((address) => ({
      address,
      outstanding: counts.get(address)?.outstanding ?? 0,
      calls: counts.get(address)?.calls ?? 0,
      ...this.ejector.health(address),
    }));
  }

  /** Stops taking calls; resolves once every running call has ended and the channels are closed. */
  close(): Promise<void> {
    return this.pool.close();
  }

  private pick(addresses: readonly string[], tried: ReadonlySet<string>): WorkerPick | undefined {
    this.stalls.check(addresses);
    const loads = addresses.map((address) => ({
      address,
      outstanding: this.pool.load(address),
      ejected: this.ejector.isEjected(address),
      suspect: this.ejector.isSuspect(address),
      probation: this.ejector.onProbation(address),
      lastFailureAt: this.ejector.lastFailureAt(address),
    }));
    return pickWorker(loads, { exclude: tried, turn: this.turn++ });
  }

  /** Forgets the health of workers no group lists any more. */
  private retainHealth(): void {
    const listed = this.pool.listedAddresses();
    this.ejector.retain(listed);
    this.stalls.retain(listed);
  }

  /**
   * Feeds the ejector: connection failures count against a worker, any other answer for it. The
   * first connection failure of a worker that was answering starts its failure streak.
   */
  private recordOutcome(address: string, status: number): void {
    if (isWorkerFailureStatus(status)) {
      if (!this.failingSince.has(address)) this.failingSince.set(address, this.now());
      this.ejector.recordFailure(address);
      return;
    }
    // A deadline or a cancel says nothing about the worker: it may be slow, or never reached.
    if (status !== GrpcStatus.DEADLINE_EXCEEDED && status !== GrpcStatus.CANCELLED) {
      this.failingSince.delete(address);
      this.ejector.recordSuccess(address);
    }
  }

  /**
   * Whether the retry may start: outside the budget when the call was already with the worker
   * when its failure streak began (a worker that dies takes all its calls down at once, and each
   * deserves its retry), within the budget otherwise (calls sent to a worker already failing).
   */
  private acquireRetry(address: string, dispatchedAt: number): boolean {
    const since = this.failingSince.get(address);
    if (since !== undefined && dispatchedAt <= since) {
      this.budget.recordRetry();
      return true;
    }
    return this.budget.tryAcquireRetry();
  }

  private mayRetry(
    status: number,
    attempt: number,
    addresses: readonly string[],
    tried: ReadonlySet<string>,
    request: { signal?: CancelSignal | undefined; deadlineEpochMs: number },
    failedAddress: string,
    dispatchedAt: number,
  ): boolean {
    return (
      isRetryableStatus(status) &&
      attempt < this.maxAttempts &&
      request.signal?.aborted !== true &&
      Date.now() < request.deadlineEpochMs &&
      addresses.some((address) => !tried.has(address)) &&
      this.acquireRetry(failedAddress, dispatchedAt)
    );
  }
}

/** The addresses a request may go to: its own list, else its group's. */
function candidates(
  request: { addresses?: readonly string[] | undefined; workerGroup?: string | undefined },
  pool: WorkerPool,
): readonly string[] {
  if (request.addresses !== undefined) return [...new Set(request.addresses)];
  return request.workerGroup === undefined ? [] : pool.addressesOf(request.workerGroup);
}
