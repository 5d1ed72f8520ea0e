import { Inject, Injectable } from '@nestjs/common';
import { type Logger } from '@modelgate/observability';
import { DataSource, type EntityManager } from 'typeorm';
import { type RegistryConfig } from '../registry.config.js';
import { LOGGER, REGISTRY_CONFIG } from '../registry.tokens.js';
import { type Actor } from './actor.js';
import { OutboxRelay } from './outbox-relay.service.js';

/** What a change did, for the audit row (and the config event's summary). */
export interface ChangeOutcome<T> {
  value: T;
  /** Dotted verb, e.g. `model.register`. */
  action: string;
  /** What was changed, e.g. `model:sst2:1`. */
  target: string;
  details?: Record<string, unknown>;
}

/** Whether a change alters the config snapshot (and so bumps the revision). */
export interface ChangeKind {
  configChange: boolean;
}

/**
 * Runs every admin mutation: the change, its audit row and (for config changes) its
 * `config_events` row commit in ONE transaction; after commit the revision is announced. A
 * change that throws rolls back all three, so nothing is announced (DESIGN §3.4).
 */
@Injectable()
export class ConfigChangesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: OutboxRelay,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Applies `work` as `actor`'s change; resolves with its value once committed and announced. */
  async apply<T>(
    actor: Actor,
    kind: ChangeKind,
    work: (manager: EntityManager) => Promise<ChangeOutcome<T>>,
  ): Promise<T> {
    const { outcome, revision } = await this.dataSource.transaction(async (manager) => {
      // Serializes config changes, so revisions are handed out in commit order: a node that has
      // seen revision N has seen every change numbered below N.
      if (kind.configChange) await manager.query('LOCK TABLE config_events IN EXCLUSIVE MODE');
      const outcome = await work(manager);
      const details = { ...outcome.details, ...(actor.requestId ? { requestId: actor.requestId } : {}) };
      await manager.query('INSERT INTO audit_log (actor, action, target, details) VALUES ($1, $2, $3, $4)', [
        actor.name,
        outcome.action,
        outcome.target,
        JSON.stringify(details),
      ]);
      if (!kind.configChange) return { outcome, revision: undefined };
      const rows = await manager.query<{ revision: string }[]>(
        'INSERT INTO config_events (actor, summary) VALUES ($1, $2) RETURNING revision',
        [actor.name, `${outcome.action} ${outcome.target}`],
      );
      return { outcome, revision: Number(rows[0]?.revision) };
    });

    if (revision !== undefined) {
      if (this.config.REGISTRY_TEST_CRASH_AFTER_COMMIT) {
        this.logger.warn({ revision }, 'test hook: exiting after commit, before announcing');
        process.exit(1);
      }
      await this.relay.announce(revision);
    }
    return outcome.value;
  }
}
