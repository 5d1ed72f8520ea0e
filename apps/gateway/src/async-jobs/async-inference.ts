import { randomBytes } from 'node:crypto';
import { ErrorCode, ModelgateError, isModelgateError } from '@modelgate/contracts';
import { type Logger } from '@modelgate/observability';
import { type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { type ServeAnswer, type ServeCall, type ServeService } from '../serving/serve.service.js';
import { asJsonBody } from '../serving/image-input.js';
import { JOB_BACKOFF_TYPE, JOB_MAX_ATTEMPTS, mayRetry, retryDelayMs } from './job-retry.js';

/** The BullMQ queue of `Prefer: respond-async` requests (DESIGN §3.6). */
export const ASYNC_INFERENCE_QUEUE = 'async-inference';

/**
 * What a job carries: the call, minus what cannot cross a process boundary; after a failure the
 * fleet may recover from, when it first failed (the retry window runs from there: job-retry.ts).
 */
type JobData = Omit<ServeCall, 'signal'> & { firstFailedAtMs?: number };

/** A job as `GET /jobs/:id` shows it. */
export interface JobView {
  job: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  result?: ServeAnswer['body'];
  error?: { code: string; message: string };
}

/** How async inference runs. */
export interface AsyncInferenceOptions {
  redisUrl: string;
  /** Key prefix shared by modelgate on this Redis. */
  keyPrefix: string;
  /** How long results (and failures) are kept, in seconds. */
  resultTtlSeconds: number;
  /** Jobs this gateway pod runs at once. */
  concurrency: number;
  /**
   * Whether this process runs jobs (a BullMQ worker) besides queueing and reading them: true for a
   * lone gateway and for the one event loop of a cluster its primary picks (pod/pod-primary.ts).
   */
  consume: boolean;
}

/** The longest wait between two prunes of expired results (a shorter TTL prunes at its own pace). */
const MAX_PRUNE_INTERVAL_MS = 60_000;
/** Expired jobs removed per set and prune: a backlog goes over the next prunes. */
const PRUNE_BATCH = 1000;

/**
 * How long a call waits for a queue connection that is not ready (Redis restarting, or not yet
 * reached since this gateway started) before answering UNAVAILABLE: one reconnection attempt.
 */
const READY_WAIT_MS = 2_000;

/** Random bytes in a job id: 144 bits, so an id can be neither guessed nor enumerated. */
const JOB_ID_BYTES = 18;
/** What a job id looks like; anything else is unknown without asking Redis. */
const JOB_ID_PATTERN = /^job-[A-Za-z0-9_-]{24}$/;

/** A new job id, made by the gateway: `job-` and 144 random bits in base64url. */
export function newJobId(): string {
  return `job-${randomBytes(JOB_ID_BYTES).toString('base64url')}`;
}

/**
 * Asynchronous inference on BullMQ: a request is checked, queued under a job id the gateway makes
 * (unguessable: knowing the id is what lets a client read the result; the client's x-request-id
 * only correlates logs, so no id of its choosing can clash or leak a result), run by any gateway's worker
 * through the same serve path, retried with backoff when the fleet was busy, and its result kept
 * for `resultTtlSeconds`: past it a job reads as unknown, and the consuming gateways remove it
 * from Redis within the TTL again (at most a minute later). BullMQ's own `removeOnComplete` age
 * acts only when another job finishes, so on a quiet queue it alone would keep results forever.
 * A gateway that dies mid-job leaves it to BullMQ's stalled-job recovery.
 */
export class AsyncInference {
  private readonly connection: Redis;
  private readonly queue: Queue<JobData, ServeAnswer['body']>;
  private readonly worker: Worker<JobData, ServeAnswer['body']> | undefined;
  private readonly workerConnection: Redis | undefined;
  private readonly pruneTimer: NodeJS.Timeout | undefined;
  private pruning: Promise<void> | undefined;
  private consuming = false;

  constructor(
    private readonly serve: ServeService,
    private readonly options: AsyncInferenceOptions,
    private readonly logger: Logger,
  ) {
    // The queue's calls answer clients (submit, status): while Redis is down they fail after one
    // reconnection attempt (see redisCall), and the client gets 503, rather than wait for Redis
    // with the request open. The worker's connection waits (BullMQ's blocking reads need it).
    this.connection = new Redis(options.redisUrl, { maxRetriesPerRequest: 1 });
    this.connection.on('error', (error) => logger.warn({ err: error }, 'async inference redis error'));
    const prefix = `${options.keyPrefix}:bull`;
    this.queue = new Queue(ASYNC_INFERENCE_QUEUE, { connection: this.connection, prefix });
    if (!options.consume) return;
    this.workerConnection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
    this.workerConnection.on('error', (error) => logger.warn({ err: error }, 'async inference redis error'));
    this.worker = new Worker(ASYNC_INFERENCE_QUEUE, (job) => this.run(job), {
      connection: this.workerConnection,
      prefix,
      // Jobs are taken only once the gateway has its first config (startConsuming).
      autorun: false,
      concurrency: options.concurrency,
      settings: { backoffStrategy: (attemptsMade: number) => retryDelayMs(attemptsMade) },
    });
    this.worker.on('error', (error) => logger.warn({ err: error }, 'async inference worker error'));
    const every = Math.min(this.ttlMs, MAX_PRUNE_INTERVAL_MS);
    this.pruneTimer = setInterval(() => void this.prune(), every);
    this.pruneTimer.unref();
  }

  /**
   * Starts taking jobs, once: the gateway calls it when its first config snapshot is applied. A
   * job taken before would meet a gateway with no endpoints yet and be retried for nothing; one
   * past its retry window (a backlog left while no gateway consumed) would fail for good.
   */
  startConsuming(): void {
    if (!this.worker || this.consuming) return;
    this.consuming = true;
    this.worker
      .run()
      .catch((error: unknown) => this.logger.error({ err: error }, 'async inference worker stopped'));
  }

  private get ttlMs(): number {
    return this.options.resultTtlSeconds * 1000;
  }

  /** Removes the jobs that finished more than the TTL ago (both sets), one prune at a time. */
  private prune(): Promise<void> {
    // With Redis away, BullMQ would hold the call until it is back (and `close` behind it).
    if (this.connection.status !== 'ready') return Promise.resolve();
    this.pruning ??= (async () => {
      try {
        for (const set of ['completed', 'failed'] as const)
          await this.queue.clean(this.ttlMs, PRUNE_BATCH, set);
      } catch (error) {
        this.logger.warn({ err: error }, 'could not prune expired async results');
      } finally {
        this.pruning = undefined;
      }
    })();
    return this.pruning;
  }

  /** Checks and queues a call; resolves with its new job id, or UNAVAILABLE while Redis is down. */
  async submit(call: ServeCall): Promise<string> {
    this.serve.validate(call);
    const { signal: _signal, ...fields } = call;
    // A raw image body travels as `{"image": "data:..."}`: the queue holds JSON.
    const data = { ...fields, body: asJsonBody(call.body) };
    const keep = { age: this.options.resultTtlSeconds };
    const jobId = newJobId();
    await this.redisCall(() =>
      this.queue.add('serve', data, {
        jobId,
        attempts: JOB_MAX_ATTEMPTS,
        backoff: { type: JOB_BACKOFF_TYPE },
        removeOnComplete: keep,
        removeOnFail: keep,
      }),
    );
    return jobId;
  }

  /** The state of job `id`; NOT_FOUND once unknown or expired. */
  async status(id: string): Promise<JobView> {
    const notFound = () =>
      new ModelgateError(ErrorCode.NOT_FOUND, `no job '${id.slice(0, 64)}' (unknown, or its result expired)`);
    if (!JOB_ID_PATTERN.test(id)) throw notFound();
    // State first, then the job: BullMQ stores a result and the completed state in one step, so a
    // job read after its state says completed carries its result (read the other way round, a job
    // finishing in between would show as succeeded without one).
    const state = await this.redisCall(() => this.queue.getJobState(id));
    if (state === 'unknown') throw notFound();
    const job = await this.redisCall(() => this.queue.getJob(id));
    if (!job) throw notFound();
    // Expired, not yet pruned: gone as far as a client can tell.
    if (job.finishedOn !== undefined && Date.now() - job.finishedOn >= this.ttlMs) throw notFound();
    if (state === 'completed') return { job: id, status: 'succeeded', result: job.returnvalue };
    if (state === 'failed') return { job: id, status: 'failed', error: parseFailure(job.failedReason) };
    return { job: id, status: state === 'active' ? 'running' : 'queued' };
  }

  async close(): Promise<void> {
    clearInterval(this.pruneTimer);
    await this.pruning;
    await this.worker?.close();
    await this.queue.close();
    this.connection.disconnect();
    this.workerConnection?.disconnect();
  }

  /**
   * `call` once the queue's connection is ready, its failure (Redis down or unreachable) answered
   * as UNAVAILABLE with Retry-After. A connection that is not ready gets one reconnection attempt's
   * time first: BullMQ holds every call until Redis is first reached, and a call handed to it
   * would run whenever that happens, after its client was told to retry.
   */
  private async redisCall<T>(call: () => Promise<T>): Promise<T> {
    const ready = await connectionReady(this.connection, READY_WAIT_MS);
    try {
      if (!ready) throw new Error(`the queue's Redis connection is ${this.connection.status}`);
      return await call();
    } catch (error) {
      // Where Redis is stays in the log: the client learns only that it should retry.
      this.logger.warn({ err: error }, 'async inference: Redis call failed');
      throw new ModelgateError(
        ErrorCode.UNAVAILABLE,
        'asynchronous inference cannot reach its queue (Redis) now; retry later',
        { retryAfterSeconds: 1 },
        { cause: error },
      );
    }
  }

  private async run(job: Job<JobData>): Promise<ServeAnswer['body']> {
    const { firstFailedAtMs, ...call } = job.data;
    try {
      return (await this.serve.serve(call)).body;
    } catch (error) {
      const failure = isModelgateError(error)
        ? { code: error.code, message: error.message }
        : { code: ErrorCode.INTERNAL, message: 'internal error' };
      if (!isModelgateError(error)) this.logger.error({ err: error, job: job.id }, 'async inference failed');
      const reason = JSON.stringify(failure);
      const now = Date.now();
      if (!mayRetry(failure.code, firstFailedAtMs ?? now, now)) throw new UnrecoverableError(reason);
      if (firstFailedAtMs === undefined) await this.recordFirstFailure(job, now);
      throw new Error(reason, { cause: error });
    }
  }

  /** Keeps when `job` first failed, in its data, so its retry window outlasts the gateway that ran it. */
  private async recordFirstFailure(job: Job<JobData>, atMs: number): Promise<void> {
    try {
      await job.updateData({ ...job.data, firstFailedAtMs: atMs });
    } catch (error) {
      // Redis is what failed: the next attempt starts the window again (JOB_MAX_ATTEMPTS bounds it).
      this.logger.warn({ err: error, job: job.id }, 'async inference: could not record a first failure');
    }
  }
}

/** Whether `connection` is ready now or becomes so within `waitMs`. */
function connectionReady(connection: Redis, waitMs: number): Promise<boolean> {
  if (connection.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const onReady = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      connection.off('ready', onReady);
      resolve(false);
    }, waitMs);
    connection.once('ready', onReady);
  });
}

function parseFailure(reason: string | undefined): { code: string; message: string } {
  try {
    const parsed = JSON.parse(reason ?? '') as { code?: unknown; message?: unknown };
    if (typeof parsed.code === 'string' && typeof parsed.message === 'string') {
      return { code: parsed.code, message: parsed.message };
    }
  } catch {
    // fall through
  }
  return { code: ErrorCode.INTERNAL, message: 'the job failed' };
}
