import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type Logger } from '@modelgate/observability';
import { type RegistryConfig } from '../registry.config.js';
import { LOGGER, REGISTRY_CONFIG } from '../registry.tokens.js';
import { ModelPreparationService, RetryLaterError } from './model-preparation.service.js';
import { type PreparationQueue } from './preparation-queue.js';

/**
 * Preparation without Redis (standalone mode): one job at a time in this process, with the
 * same processor, attempts and exponential backoff as the BullMQ queue. Nothing survives a
 * restart but the database: unfinished models are queued again at start-up.
 */
@Injectable()
export class InProcessPreparationQueue implements PreparationQueue, OnApplicationBootstrap, OnModuleDestroy {
  readonly #queued = new Set<string>();
  #chain: Promise<void> = Promise.resolve();
  readonly #stop = new AbortController();

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
    await this.#chain;
  }

  async #run(modelId: string): Promise<void> {
    const max = this.config.REGISTRY_PREPARATION_ATTEMPTS;
    for (let attempt = 1; attempt <= max && !this.#stop.signal.aborted; attempt += 1) {
      try {
        await this.preparation.prepare(modelId, { number: attempt, max });
        return;
      } catch (error) {
        if (!(error instanceof RetryLaterError) && attempt === max) {
          await this.preparation.markFailed(modelId, `preparation gave up: ${String(error)}`);
          return;
        }
        const delay = this.config.REGISTRY_PREPARATION_BACKOFF_MS * 2 ** (attempt - 1);
        await sleep(delay, undefined, { signal: this.#stop.signal }).catch(() => undefined);
      }
    }
  }
}
