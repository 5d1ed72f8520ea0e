import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type Logger } from '@modelgate/observability';
import { DelayedError, type Job, type Queue, Worker } from 'bullmq';
import { type RegistryConfig } from '../registry.config.js';
import { LOGGER, REGISTRY_CONFIG } from '../registry.tokens.js';
import { ModelPreparationService, WaitForSpaceError } from './model-preparation.service.js';
import { MODEL_PREPARATION_QUEUE, type PreparationQueue } from './preparation-queue.js';

interface PreparationJobData {
  modelId: string;
  /** Tries that found the artifact cache full (space-wait.ts). @defaultValue 0 */
  spaceWaits?: number;
}

/**
 * Preparation on BullMQ: the queue comes from @nestjs/bullmq; the worker is built here because
 * its lock and stalled-check intervals come from config (the @Processor decorator's options are
 * fixed at import time) and because it must stop before the database pool closes. Job id = model
 * id, so queueing twice is a no-op; retries back off exponentially; a job whose worker died is
 * found by BullMQ's stalled check once its lock expires and runs again elsewhere. A job that found
 * the artifact cache full goes back to the delayed set (BullMQ's DelayedError: no attempt spent,
 * kept in Redis across restarts) and runs again after its wait, for as long as the cache stays full.
 */
@Injectable()
export class BullPreparationQueue implements PreparationQueue, OnApplicationBootstrap, OnModuleDestroy {
  #worker: Worker<PreparationJobData> | undefined;

  constructor(
    @InjectQueue(MODEL_PREPARATION_QUEUE) private readonly queue: Queue<PreparationJobData>,
    private readonly preparation: ModelPreparationService,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async enqueue(modelId: string): Promise<void> {
    // A job that failed for good stays in the failed set under this id; clear it so the add counts.
    const existing = await this.queue.getJob(modelId);
    if (existing !== undefined && (await existing.isFailed())) await existing.remove();
    await this.queue.add(
      'prepare',
      { modelId },
      {
        jobId: modelId,
        attempts: this.config.REGISTRY_PREPARATION_ATTEMPTS,
        backoff: { type: 'exponential', delay: this.config.REGISTRY_PREPARATION_BACKOFF_MS },
        removeOnComplete: { age: 24 * 3600, count: 1000 },
        removeOnFail: { age: 7 * 24 * 3600 },
      },
    );
  }

  onApplicationBootstrap(): void {
    const worker = new Worker<PreparationJobData>(
      this.queue.name,
      (job, token) => this.#process(job, token),
      {
        // BullMQ's blocking reads wait for Redis however long it is away.
        connection: { ...this.queue.opts.connection, maxRetriesPerRequest: null },
        prefix: this.config.REDIS_KEY_PREFIX,
        concurrency: 1,
        lockDuration: this.config.REGISTRY_PREPARATION_LOCK_MS,
        stalledInterval: this.config.REGISTRY_PREPARATION_STALLED_INTERVAL_MS,
      },
    );
    worker.on('failed', (job, error) => void this.#onFailed(job, error));
    worker.on('error', (error) => this.logger.warn({ err: error }, 'model-preparation worker error'));
    this.#worker = worker;
    void this.#requeueUnfinished();
    // After a Redis outage: a job added meanwhile failed (or never got there), and its model would
    // stay PENDING until the next start. Queueing again is a no-op for a job already there.
    void this.queue.backend.client
      .then((client) => client.on('ready', () => void this.#requeueUnfinished()))
      .catch(() => undefined); // closed before Redis was ever reached: nothing to follow
  }

  /** Models left PENDING or PREPARING by a crash, or whose job never reached Redis (outages). */
  async #requeueUnfinished(): Promise<void> {
    try {
      for (const modelId of await this.preparation.unfinished()) await this.enqueue(modelId);
    } catch (error) {
      this.logger.error({ err: error }, 'could not re-queue unfinished model preparations');
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.#worker?.close();
  }

  async #process(job: Job<PreparationJobData>, token: string | undefined): Promise<void> {
    const spaceWaits = job.data.spaceWaits ?? 0;
    try {
      await this.preparation.prepare(job.data.modelId, {
        number: job.attemptsMade + 1,
        max: job.opts.attempts ?? 1,
        spaceWaits,
      });
    } catch (error) {
      if (!(error instanceof WaitForSpaceError)) throw error;
      await job.updateData({ ...job.data, spaceWaits: spaceWaits + 1 });
      await job.moveToDelayed(Date.now() + error.delayMs, token);
      throw new DelayedError();
    }
  }

  /** A job that will not run again (attempts used up, or stalled too often) leaves its model FAILED. */
  async #onFailed(job: Job<PreparationJobData> | undefined, error: Error): Promise<void> {
    if (job === undefined) return;
    const final = job.attemptsMade >= (job.opts.attempts ?? 1) || /stalled/i.test(error.message);
    if (!final) return;
    try {
      await this.preparation.markFailed(job.data.modelId, `preparation gave up: ${error.message}`);
    } catch (markError) {
      this.logger.error({ err: markError, modelId: job.data.modelId }, 'could not mark model FAILED');
    }
  }
}
