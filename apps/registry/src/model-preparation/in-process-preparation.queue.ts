import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type Logger } from '@modelgate/observability';
import { type RegistryConfig } from '../registry.config.js';
import { LOGGER, REGISTRY_CONFIG } from '../registry.tokens.js';
import { ModelPreparationService, RetryLaterError, WaitForSpaceError } from './model-preparation.service.js';
import { type PreparationQueue } from './preparation-queue.js';

/**
 * Preparation without Redis (standalone mode): one job at a time in this process, with the
 * same processor, attempts and exponential backoff as the BullMQ queue. Nothing survives a
 * restart but the database: unfinished models are queued again at start-up (a model waiting for
 * space in the artifact cache is not: FAILED in the database, it stays so after a restart). A job
 * that found the cache full leaves the line and is queued again after its wait, so it holds up
 * no other model's preparation.
 */
@Injectable()
export class InProcessPreparationQueue implements PreparationQueue, OnApplicationBootstrap, OnModuleDestroy {
  readonly #queued = new Set<string>();
  #chain: Promise<void> = Promise.resolve();
  readonly #stop = new AbortController();
  /** Tries so far that found the cache full, by model id, while its next try waits. */
  readonly #spaceWaits = new Map<string, number>();
  readonly #spaceTimers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly preparation: ModelPreparationService,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  enqueue(modelId: string): Promise<void> {
    if (this.#queued.has(modelId) || this.#stop.signal.aborted) return Promise.resolve();
    this.#queued.add(modelId);
    this.#chain = this.#chain
      .then(() => this.#run(modelId))
      .catch((error: unknown) => this.logger.error({ err: error, modelId }, 'model preparation failed'))
      .finally(() => this.#queued.delete(modelId));
    return Promise.resolve();
  }

  onApplicationBootstrap(): void {
    this.preparation
      .unfinished()
      .then((modelIds) => Promise.all(modelIds.map((modelId) => this.enqueue(modelId))))
      .catch((error: unknown) =>
        this.logger.error({ err: error }, 'could not re-queue unfinished model preparations'),
      );
  }

  async onModuleDestroy(): Promise<void> {
    this.#stop.abort();
    for (const timer of this.#spaceTimers) clearTimeout(timer);
    await this.#chain;
  }

  async #run(modelId: string): Promise<void> {
    const max = this.config.REGISTRY_PREPARATION_ATTEMPTS;
    const spaceWaits = this.#spaceWaits.get(modelId) ?? 0;
    this.#spaceWaits.delete(modelId);
    for (let attempt = 1; attempt <= max && !this.#stop.signal.aborted; attempt += 1) {
      try {
        await this.preparation.prepare(modelId, { number: attempt, max, spaceWaits });
        return;
      } catch (error) {
        if (error instanceof WaitForSpaceError) {
          this.#waitForSpace(modelId, spaceWaits + 1, error.delayMs);
          return;
        }
        if (!(error instanceof RetryLaterError) && attempt === max) {
          await this.preparation.markFailed(modelId, `preparation gave up: ${String(error)}`);
          return;
        }
        const delay = this.config.REGISTRY_PREPARATION_BACKOFF_MS * 2 ** (attempt - 1);
        await sleep(delay, undefined, { signal: this.#stop.signal }).catch(() => undefined);
      }
    }
  }

  /** Queues model `modelId` again in `delayMs`, its `spaceWaits` tries that found no space kept. */
  #waitForSpace(modelId: string, spaceWaits: number, delayMs: number): void {
    const timer = setTimeout(() => {
      this.#spaceTimers.delete(timer);
      this.#spaceWaits.set(modelId, spaceWaits);
      void this.enqueue(modelId);
    }, delayMs);
    this.#spaceTimers.add(timer);
  }
}
