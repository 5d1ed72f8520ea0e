import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  ErrorCode,
  formatModelId,
  ModelgateError,
  type ModelView,
  type RegisterModelInput,
} from '@modelgate/contracts';
import { type Logger } from '@modelgate/observability';
import { DataSource, type EntityManager } from 'typeorm';
import { PREPARATION_QUEUE, type PreparationQueue } from '../model-preparation/preparation-queue.js';
import { type Actor } from '../outbox/actor.js';
import { ConfigChangesService } from '../outbox/config-changes.service.js';
import { LOGGER } from '../registry.tokens.js';
import { ArtifactUriPolicy } from './artifact-uri-policy.js';
import { ModelEntity } from './model.entity.js';
import { VersionPolicyEntity } from './version-policy.entity.js';
import { toModelView } from './model-view.js';

/** How long registration waits for the queue (Redis) before answering anyway. */
const ENQUEUE_TIMEOUT_MS = 5000;

/** Model versions: registration (then preparation), listing, deletion. */
@Injectable()
export class ModelsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: ConfigChangesService,
    private readonly uriPolicy: ArtifactUriPolicy,
    @Inject(PREPARATION_QUEUE) private readonly queue: PreparationQueue,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Registers a version in PENDING and queues its preparation. */
  async register(actor: Actor, input: RegisterModelInput): Promise<ModelView> {
    if (input.source !== undefined) await this.uriPolicy.checkSource();
    if (input.artifact !== undefined) await this.uriPolicy.check(input.artifact, 'artifact');
    if (input.encoder !== undefined) await this.uriPolicy.check(input.encoder, 'encoder');
    for (const [index, file] of input.externalData.entries()) {
      await this.uriPolicy.check(file, `externalData[${index}]`);
    }
    if (input.tokenizer !== undefined) await this.uriPolicy.check(input.tokenizer, 'tokenizer');

    const model = await this.changes.apply(actor, { configChange: true }, async (manager) => {
      const repository = manager.getRepository(ModelEntity);
      const version = input.version ?? (await nextVersion(manager, input.name));
      const id = formatModelId(input.name, String(version));
      if (await repository.existsBy({ name: input.name, version })) {
        throw new ModelgateError(ErrorCode.CONFLICT, `model ${id} already exists`, { field: 'version' });
      }
      const row = repository.create({
        id: randomUUID(),
        name: input.name,
        version,
        task: input.task,
        artifactUri: input.artifact?.uri ?? null,
        artifactSha256: input.artifact?.sha256 ?? null,
        encoderUri: input.encoder?.uri ?? null,
        encoderSha256: input.encoder?.sha256 ?? null,
        sourceUri: input.source ?? null,
        externalData: input.externalData,
        tokenizerUri: input.tokenizer?.uri ?? null,
        tokenizerSha256: input.tokenizer?.sha256 ?? null,
        io: null,
        labels: input.labels ?? null,
        batching: input.batching,
        runtime: input.runtime,
        workerGroup: input.workerGroup,
        status: 'PENDING',
        statusReason: null,
        preparedAt: null,
        timings: null,
      });
      await repository.insert(row);
      const saved = await repository.findOneByOrFail({ id: row.id });
      return {
        value: saved,
        action: 'model.register',
        target: `model:${id}`,
        details: {
          task: input.task,
          ...(input.source === undefined ? {} : { source: input.source }),
          artifact: input.artifact ?? null,
          ...(input.encoder === undefined ? {} : { encoder: input.encoder }),
          ...(input.externalData.length === 0 ? {} : { externalData: input.externalData }),
          tokenizer: input.tokenizer ?? null,
        },
      };
    });

    try {
      await withTimeout(this.queue.enqueue(model.id), ENQUEUE_TIMEOUT_MS);
    } catch (error) {
      // The row is committed and stays PENDING; every start re-queues PENDING models.
      this.logger.error({ err: error, model: model.id }, 'could not queue model preparation');
    }
    return toModelView(model);
  }

  /** Every version, optionally of one name, by name then version. */
  async list(name?: string): Promise<ModelView[]> {
    const rows = await this.dataSource.getRepository(ModelEntity).find({
      where: name === undefined ? {} : { name },
      order: { name: 'ASC', version: 'ASC' },
    });
    return rows.map(toModelView);
  }

  /**
   * A `specific` version policy naming `version` loses it, as the version goes: kept, it would load
   * whichever version later takes the number. When it names no other version (and the model has
   * others), the delete is refused rather than leave a policy that loads nothing.
   */
  private async dropFromSpecificPolicy(manager: EntityManager, name: string, version: number): Promise<void> {
    const policies = manager.getRepository(VersionPolicyEntity);
    const row = await policies.findOneBy({ modelName: name });
    if (row?.policy.kind !== 'specific' || !row.policy.versions.includes(version)) return;
    const rest = row.policy.versions.filter((listed) => listed !== version);
    if (rest.length > 0) {
      await policies.update(
        { modelName: name },
        { policy: { kind: 'specific', versions: rest }, updatedAt: new Date() },
      );
      return;
    }
    const others = await manager.getRepository(ModelEntity).countBy({ name });
    if (others > 1) {
      throw new ModelgateError(
        ErrorCode.CONFLICT,
        `model ${name}'s version policy loads only version ${version}; set another one (modelgate model policy ${name} ...) before deleting it`,
      );
    }
  }

  /** One version; NOT_FOUND when unknown. */
  async get(name: string, version: number): Promise<ModelView> {
    return toModelView(await findModel(this.dataSource.manager, name, version));
  }

  /** Deletes a version; CONFLICT while an endpoint routes to it. */
  async remove(actor: Actor, name: string, version: number): Promise<void> {
    await this.changes.apply(actor, { configChange: true }, async (manager) => {
      const model = await findModel(manager, name, version);
      const id = formatModelId(name, String(version));
      const routedBy = await manager.query<{ name: string }[]>(
        `SELECT e.name FROM endpoint_routes r JOIN endpoints e ON e.id = r.endpoint_id
         WHERE r.model_id = $1 ORDER BY e.name`,
        [model.id],
      );
      if (routedBy.length > 0) {
        const names = routedBy.map((endpoint) => endpoint.name).join(', ');
        throw new ModelgateError(
          ErrorCode.CONFLICT,
          `model ${id} is routed by endpoint(s) ${names}; change their routes before deleting it`,
        );
      }
      await this.dropFromSpecificPolicy(manager, name, version);
      try {
        await manager.getRepository(ModelEntity).delete({ id: model.id });
      } catch (error) {
        // A rollout (or a route committed meanwhile) still refers to it: the FK says no.
        if ((error as { code?: unknown }).code === '23503') {
          throw new ModelgateError(
            ErrorCode.CONFLICT,
            `model ${id} is still referenced; it cannot be deleted`,
          );
        }
        throw error;
      }
      // The last version gone, its version policy goes too: a name registered again starts afresh.
      if (!(await manager.getRepository(ModelEntity).existsBy({ name }))) {
        await manager.getRepository(VersionPolicyEntity).delete({ modelName: name });
      }
      return { value: undefined, action: 'model.delete', target: `model:${id}` };
    });
  }
}

/** The row of `name:version`, or NOT_FOUND. */
export async function findModel(manager: EntityManager, name: string, version: number): Promise<ModelEntity> {
  const row = await manager.getRepository(ModelEntity).findOneBy({ name, version });
  if (row === null) {
    throw new ModelgateError(
      ErrorCode.NOT_FOUND,
      `model ${formatModelId(name, String(version))} does not exist`,
    );
  }
  return row;
}

async function nextVersion(manager: EntityManager, name: string): Promise<number> {
  const rows = await manager.query<{ next: number | string }[]>(
    'SELECT coalesce(max(version), 0) + 1 AS next FROM models WHERE name = $1',
    [name],
  );
  return Number(rows[0]?.next ?? 1);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
