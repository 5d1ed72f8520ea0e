import { Injectable } from '@nestjs/common';
import {
  type VersionPolicy,
  DEFAULT_VERSION_POLICY,
  ErrorCode,
  ModelgateError,
  selectLoadedVersions,
  type VersionPolicyView,
} from '@modelgate/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { ConfigSnapshotService } from '../config-snapshot/config-snapshot.service.js';
import { type Actor } from '../outbox/actor.js';
import { ConfigChangesService } from '../outbox/config-changes.service.js';
import { ModelEntity } from './model.entity.js';
import { VersionPolicyEntity } from './version-policy.entity.js';

/**
 * Version policies (Triton's model version policy): which READY versions of a model the workers
 * of its group load besides the routed ones. A change is a config change, so the fleet loads and
 * unloads within a second of it.
 */
@Injectable()
export class VersionPolicyService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: ConfigChangesService,
    private readonly snapshots: ConfigSnapshotService,
  ) {}

  /** The policy of model `name`; NOT_FOUND when no version of it exists. */
  async get(name: string): Promise<VersionPolicyView> {
    await requireModel(this.dataSource.manager, name);
    const row = await this.dataSource.getRepository(VersionPolicyEntity).findOneBy({ modelName: name });
    return this.view(name, row?.policy);
  }

  /** Sets the policy; `specific` versions must exist (in any state). */
  async set(actor: Actor, name: string, policy: VersionPolicy): Promise<VersionPolicyView> {
    await this.changes.apply(actor, { configChange: true }, async (manager) => {
      const versions = await requireModel(manager, name);
      if (policy.kind === 'specific') {
        const missing = policy.versions.filter((version) => !versions.includes(version));
        if (missing.length > 0) {
          throw new ModelgateError(
            ErrorCode.INVALID_ARGUMENT,
            `model ${name} has no version ${missing.join(', ')} (it has ${versions.join(', ')})`,
            { field: 'versions' },
          );
        }
      }
      await manager.getRepository(VersionPolicyEntity).upsert({ modelName: name, policy }, ['modelName']);
      return {
        value: undefined,
        action: 'model.version-policy',
        target: `model:${name}`,
        details: { policy },
      };
    });
    return this.view(name, policy);
  }

  /** Goes back to the default policy (latest 1). */
  async reset(actor: Actor, name: string): Promise<VersionPolicyView> {
    await this.changes.apply(actor, { configChange: true }, async (manager) => {
      await requireModel(manager, name);
      await manager.getRepository(VersionPolicyEntity).delete({ modelName: name });
      return { value: undefined, action: 'model.version-policy.reset', target: `model:${name}` };
    });
    return this.view(name, undefined);
  }

  private async view(name: string, policy: VersionPolicy | undefined): Promise<VersionPolicyView> {
    const snapshot = await this.snapshots.current();
    const loaded = selectLoadedVersions(snapshot);
    return {
      model: name,
      policy: policy ?? DEFAULT_VERSION_POLICY,
      isDefault: policy === undefined,
      loadedVersions: snapshot.models
        .filter((model) => model.name === name && loaded.has(model.id))
        .map((model) => Number(model.version))
        .sort((a, b) => a - b),
    };
  }
}

/** The version numbers of model `name`, ascending; NOT_FOUND when it has none. */
async function requireModel(manager: EntityManager, name: string): Promise<number[]> {
  const rows = await manager.getRepository(ModelEntity).find({
    select: { version: true },
    where: { name },
    order: { version: 'ASC' },
  });
  if (rows.length === 0) throw new ModelgateError(ErrorCode.NOT_FOUND, `model ${name} does not exist`);
  return rows.map((row) => row.version);
}
