import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import {
  type ArtifactRef,
  type ExternalDataRef,
  formatModelId,
  isModelgateError,
  type ModelStatus,
} from '@modelgate/contracts';
import { type Logger } from '@modelgate/observability';
import { DataSource, In } from 'typeorm';
import { ModelEntity } from '../models/model.entity.js';
import { systemActor } from '../outbox/actor.js';
import { ConfigChangesService } from '../outbox/config-changes.service.js';
import { type RegistryConfig } from '../registry.config.js';
import { LOGGER, REGISTRY_CONFIG } from '../registry.tokens.js';
import { type ImportedFiles, MODEL_IMPORTER, type ModelImporter } from '../model-import/hf-model-importer.js';
import { isNoSpaceError } from '@modelgate/model-store';
import { type PreparationDeps, isTransientFailure, labelled, prepareModel } from './prepare-model.js';
import { noSpaceRetryDelayMs, noSpaceRetryingReason, noSpaceStatusReason } from './space-wait.js';

/** Which attempt of a job this is. */
export interface Attempt {
  number: number;
  max: number;
  /**
   * Tries of this job so far that found the artifact cache full (space-wait.ts); they count
   * against no attempt. Above 0, a model FAILED for want of space is tried again. @defaultValue 0
   */
  spaceWaits?: number;
}

/** Thrown to ask the queue for another attempt after a transient failure. */
export class RetryLaterError extends Error {
  override readonly name = 'RetryLaterError';
}

/**
 * Thrown after the artifact cache was found full: the model is FAILED with the reason, and the
 * queue tries it again after `delayMs` without counting an attempt (space-wait.ts).
 */
export class WaitForSpaceError extends Error {
  override readonly name = 'WaitForSpaceError';

  constructor(
    reason: string,
    readonly delayMs: number,
  ) {
    super(reason);
  }
}

/** Injection token of the PreparationDeps (fetcher and onnxruntime opener). */
export const PREPARATION_DEPS = Symbol('PREPARATION_DEPS');

const ACTOR = systemActor('model-preparation');

/**
 * The processor of a model-preparation job, shared by the BullMQ worker and the in-process
 * runner: moves a model PENDING → PREPARING → READY | FAILED. Idempotent: a model already READY
 * or FAILED (or deleted) is left alone, so a job that runs twice does no harm — save one FAILED
 * because the artifact cache was full, which its own job tries again (FAILED → PREPARING) until
 * space returns. READY is a config change (the snapshot gains the model); FAILED is audited only
 * (a model waiting for space: its first FAILED).
 */
@Injectable()
export class ModelPreparationService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: ConfigChangesService,
    @Inject(PREPARATION_DEPS) private readonly deps: PreparationDeps,
    @Inject(MODEL_IMPORTER) private readonly importer: ModelImporter,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Runs one attempt; throws RetryLaterError when a transient failure deserves another. */
  async prepare(modelId: string, attempt: Attempt): Promise<void> {
    const repository = this.dataSource.getRepository(ModelEntity);
    const model = await repository.findOneBy({ id: modelId });
    const spaceWaits = attempt.spaceWaits ?? 0;
    if (model === null || model.status === 'READY') return;
    if (model.status === 'FAILED' && spaceWaits === 0) return;
    const id = formatModelId(model.name, String(model.version));
    await this.#setStatus(
      modelId,
      'PREPARING',
      spaceWaits > 0
        ? noSpaceRetryingReason(spaceWaits)
        : attempt.number > 1
          ? `attempt ${attempt.number} of ${attempt.max}`
          : null,
      spaceWaits > 0,
    );
    this.logger.info({ model: id, attempt: attempt.number }, 'preparing model');
    if (this.config.REGISTRY_TEST_PREPARE_DELAY_MS > 0)
      await sleep(this.config.REGISTRY_TEST_PREPARE_DELAY_MS);

    let result;
    try {
      const files = await this.#files(model, attempt);
      result = await prepareModel(
        {
          task: model.task,
          artifact: files.artifact,
          encoder: files.encoder,
          externalData: files.externalData,
          tokenizer: files.tokenizer,
          labels: model.labels,
          batching: model.batching,
        },
        this.deps,
      );
      if (files.importMs !== undefined) {
        const { timings } = result;
        result.timings = { importMs: files.importMs, ...timings, totalMs: timings.totalMs + files.importMs };
      }
    } catch (error) {
      if (error instanceof ModelGoneError) return;
      const reason = isModelgateError(error) ? error.message : `unexpected error: ${String(error)}`;
      if (!isModelgateError(error)) this.logger.error({ err: error, model: id }, 'preparation crashed');
      if (isNoSpaceError(error)) {
        const delayMs = noSpaceRetryDelayMs(spaceWaits + 1, this.config.REGISTRY_PREPARATION_BACKOFF_MS);
        const shown = noSpaceStatusReason(reason, delayMs);
        if (spaceWaits === 0) await this.markFailed(modelId, shown);
        else await this.#setStatus(modelId, 'FAILED', shown);
        this.logger.warn({ model: id, reason, retryInMs: delayMs }, 'artifact cache full; waiting for space');
        throw new WaitForSpaceError(reason, delayMs);
      }
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

  /**
   * The model's files: as registered, or, for a model registered from an hf:// source and not
   * yet imported, imported into the artifact store first and recorded on the row (audited), so a
   * later attempt or a restart does not import again.
   */
  async #files(
    model: ModelEntity,
    attempt: Attempt,
  ): Promise<{
    artifact: ArtifactRef;
    encoder: ArtifactRef | null;
    externalData: ExternalDataRef[];
    tokenizer: ArtifactRef | null;
    importMs?: number;
  }> {
    const tokenizer =
      model.tokenizerUri !== null && model.tokenizerSha256 !== null
        ? { uri: model.tokenizerUri, sha256: model.tokenizerSha256 }
        : null;
    if (model.artifactUri !== null && model.artifactSha256 !== null) {
      return {
        artifact: { uri: model.artifactUri, sha256: model.artifactSha256 },
        encoder:
          model.encoderUri !== null && model.encoderSha256 !== null
            ? { uri: model.encoderUri, sha256: model.encoderSha256 }
            : null,
        externalData: model.externalData,
        tokenizer,
      };
    }
    const source = model.sourceUri;
    if (source === null) throw new Error(`model ${model.id} has neither an artifact nor a source`);
    const prefix = attempt.number > 1 ? `attempt ${attempt.number} of ${attempt.max}: ` : '';
    await this.#setStatus(model.id, 'PREPARING', `${prefix}importing ${source}`);
    const started = performance.now();
    const imported = await labelled('source', () => this.importer.importSource(source, model.task));
    const importMs = Math.round((performance.now() - started) * 10) / 10;
    await this.#recordImport(model, source, imported);
    return { ...imported, importMs };
  }

  async #recordImport(model: ModelEntity, source: string, files: ImportedFiles): Promise<void> {
    await this.changes.apply(ACTOR, { configChange: false }, async (manager) => {
      const updated = await manager.getRepository(ModelEntity).update(
        { id: model.id, status: 'PREPARING' },
        {
          artifactUri: files.artifact.uri,
          artifactSha256: files.artifact.sha256,
          encoderUri: files.encoder?.uri ?? null,
          encoderSha256: files.encoder?.sha256 ?? null,
          externalData: files.externalData,
          tokenizerUri: files.tokenizer?.uri ?? null,
          tokenizerSha256: files.tokenizer?.sha256 ?? null,
          statusReason: null,
          updatedAt: () => 'now()',
        },
      );
      if (updated.affected !== 1) throw new ModelGoneError();
      return {
        value: undefined,
        action: 'model.imported',
        target: `model:${formatModelId(model.name, String(model.version))}`,
        details: {
          source,
          commit: files.commit ?? null,
          artifact: files.artifact,
          encoder: files.encoder,
          externalData: files.externalData,
          tokenizer: files.tokenizer,
        },
      };
    });
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

  /** Sets an unfinished model's status; `fromFailed`: a model FAILED (for want of space) too. */
  async #setStatus(
    modelId: string,
    status: ModelStatus,
    reason: string | null,
    fromFailed = false,
  ): Promise<void> {
    const from: ModelStatus[] = fromFailed ? ['PENDING', 'PREPARING', 'FAILED'] : ['PENDING', 'PREPARING'];
    await this.dataSource
      .getRepository(ModelEntity)
      .update({ id: modelId, status: In(from) }, { status, statusReason: reason, updatedAt: () => 'now()' });
  }
}

class ModelGoneError extends Error {}
