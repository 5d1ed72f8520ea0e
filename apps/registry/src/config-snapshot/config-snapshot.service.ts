import { Inject, Injectable } from '@nestjs/common';
import {
  type ConfigSnapshot,
  ErrorCode,
  ModelgateError,
  safeParseConfigSnapshot,
} from '@modelgate/contracts';
import { type Logger } from '@modelgate/observability';
import { DataSource, type EntityManager } from 'typeorm';
import { EndpointEntity } from '../endpoints/endpoint.entity.js';
import { loadRoutes } from '../endpoints/endpoint-view.js';
import { ModelEntity } from '../models/model.entity.js';
import { VersionPolicyEntity } from '../models/version-policy.entity.js';
import { LOGGER } from '../registry.tokens.js';
import { buildSnapshot } from './build-snapshot.js';

/** Reads the config snapshot from Postgres. */
@Injectable()
export class ConfigSnapshotService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** The latest committed revision; 0 before the first change. */
  async latestRevision(manager: EntityManager = this.dataSource.manager): Promise<number> {
    const rows = await manager.query<{ revision: string }[]>(
      'SELECT coalesce(max(revision), 0) AS revision FROM config_events',
    );
    return Number(rows[0]?.revision ?? 0);
  }

  /**
   * The snapshot at the latest revision, validated. One REPEATABLE READ transaction, so the
   * revision and the rows are the same moment: a change is either in both or in neither.
   */
  async current(): Promise<ConfigSnapshot> {
    return this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      const revision = await this.latestRevision(manager);
      const models = await manager.getRepository(ModelEntity).find({
        where: { status: 'READY' },
        order: { name: 'ASC', version: 'ASC' },
      });
      const endpoints = await manager.getRepository(EndpointEntity).find({ order: { name: 'ASC' } });
      const routes = await loadRoutes(manager);
      const policies = await manager.getRepository(VersionPolicyEntity).find({ order: { modelName: 'ASC' } });
      const outcome = safeParseConfigSnapshot(buildSnapshot(revision, models, endpoints, routes, policies));
      if (outcome.success) return outcome.data;
      // The API validates every change, so this is a bug or a hand-edited database: never send it.
      this.logger.error({ revision, issues: outcome.issues }, 'stored config is not a valid snapshot');
      throw new ModelgateError(ErrorCode.INTERNAL, 'the stored config does not form a valid snapshot');
    });
  }
}
