import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { formatModelId, isModelgateError } from '@modelgate/contracts';
import { type Logger } from '@modelgate/observability';
import { DataSource, In } from 'typeorm';
import { ModelEntity, type ModelStatus } from '../models/model.entity.js';
import { systemActor } from '../outbox/actor.js';
import { ConfigChangesService } from '../outbox/config-changes.service.js';
import { type RegistryConfig } from '../registry.config.js';
import { LOGGER, REGISTRY_CONFIG } from '../registry.tokens.js';
import { type PreparationDeps, isTransientFailure, prepareModel } from './prepare-model.js';

/** Which attempt of a job this is. */
export interface Attempt {
  number: number;
  max: number;
}

/** Thrown to ask the queue for another attempt after a transient failure. */
export class RetryLaterError extends Error {
  override readonly name = 'RetryLaterError';
}

/** Injection token of the PreparationDeps (fetcher and onnxruntime opener). */
export const PREPARATION_DEPS = Symbol('PREPARATION_DEPS');

const ACTOR = systemActor('model-preparation');

/**
 * The processor of a model-preparation job, shared by the BullMQ worker and the in-process
 * runner: moves a model PENDING → PREPARING → READY | FAILED. Idempotent: a model already READY
 * or FAILED (or deleted) is left alone, so a job that runs twice does no harm. READY is a config
 * change (the snapshot gains the model); FAILED is audited only.
 */
@Injectable()
export class ModelPreparationService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: ConfigChangesService,
    @Inject(PREPARATION_DEPS) private readonly deps: PreparationDeps,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Runs one attempt; throws RetryLaterError when a transient failure deserves another. */
  async prepare(modelId: string, attempt: Attempt): Promise<void> {
    const repository = this.dataSource.getRepository(ModelEntity);
    const model = await repository.findOneBy({ id: modelId });
    if (model === null || model.status === 'READY' || model.status === 'FAILED') return;
    const id = formatModelId(model.name, String(model.version));
    await this.#setStatus(
      modelId,
      'PREPARING',
      attempt.number > 1 ? `attempt ${attempt.number} of ${attempt.max}` : null,
    );
    this.logger.info({ model: id, attempt: attempt.number }, 'preparing model');
    if (this.config.REGISTRY_TEST_PREPARE_DELAY_MS > 0)
      await sleep(this.config.REGISTRY_TEST_PREPARE_DELAY_MS);

    let result;
    try {
      result = await prepareModel(
        {
          task: model.task,
          artifact: { uri: model.artifactUri, sha256: model.artifactSha256 },
          tokenizer:
            model.tokenizerUri !== null && model.tokenizerSha256 !== null
              ? { uri: model.tokenizerUri, sha256: model.tokenizerSha256 }
              : null,
          labels: model.labels,
        },
        this.deps,
      );
    } catch (error) {
      const reason = isModelgateError(error) ? error.message : `unexpected error: ${String(error)}`;
      if (!isModelgateError(error)) this.logger.error({ err: error, model: id }, 'preparation crashed');
      if (isTransientFailure(error) && attempt.number < attempt.max) {
        await this.#setStatus(
          modelId,
          'PREPARING',
          `attempt ${attempt.number} of ${attempt.max} failed: ${reason}; retrying`,
        );
        throw new RetryLaterError(reason);
      }
      await this.markFailed(modelId, reason);
      return;
    }

    await this.changes
      .apply(ACTOR, { configChange: true }, async (manager) => {
        const updated = await manager.getRepository(ModelEntity).update(
          { id: modelId, status: 'PREPARING' },
          {
            status: 'READY',
            statusReason: null,
            io: result.io,
            labels: result.labels,
            timings: result.timings,
            preparedAt: () => 'now()',
            updatedAt: () => 'now()',
          },
        );
        // Deleted (or finished elsewhere) meanwhile: roll back, announce nothing.
        if (updated.affected !== 1) throw new ModelGoneError();
        return {
          value: undefined,
          action: 'model.ready',
          target: `model:${id}`,
          details: { timings: result.timings },
        };
      })
      .catch((error: unknown) => {
        if (!(error instanceof ModelGoneError)) throw error;
      });
    this.logger.info({ model: id, timings: result.timings }, 'model READY');
  }

  /** Marks a model FAILED with `reason` unless it already finished; audited. */
  async markFailed(modelId: string, reason: string): Promise<void> {
    await this.changes
      .apply(ACTOR, { configChange: false }, async (manager) => {
        const repository = manager.getRepository(ModelEntity);
        const model = await repository.findOneBy({ id: modelId });
        const updated = await repository.update(
          { id: modelId, status: In(['PENDING', 'PREPARING']) },
          { status: 'FAILED', statusReason: reason, updatedAt: () => 'now()' },
        );
        if (model === null || updated.affected !== 1) throw new ModelGoneError();
        const id = formatModelId(model.name, String(model.version));
        this.logger.warn({ model: id, reason }, 'model FAILED');
        return { value: undefined, action: 'model.failed', target: `model:${id}`, details: { reason } };
      })
      .catch((error: unknown) => {
        if (!(error instanceof ModelGoneError)) throw error;
      });
  }

  /** Ids of models whose preparation has not finished (for re-queueing at start-up). */
  async unfinished(): Promise<string[]> {
    const rows = await this.dataSource.getRepository(ModelEntity).find({
      select: { id: true },
      where: { status: In(['PENDING', 'PREPARING']) },
      order: { createdAt: 'ASC' },
    });
    return rows.map((row) => row.id);
  }

  async #setStatus(modelId: string, status: ModelStatus, reason: string | null): Promise<void> {
    await this.dataSource
      .getRepository(ModelEntity)
      .update(
        { id: modelId, status: In(['PENDING', 'PREPARING']) },
        { status, statusReason: reason, updatedAt: () => 'now()' },
      );
  }
}

class ModelGoneError extends Error {}
