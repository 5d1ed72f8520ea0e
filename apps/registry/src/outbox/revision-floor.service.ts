import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type Logger } from '@modelgate/observability';
import { ConfigSnapshotService } from '../config-snapshot/config-snapshot.service.js';
import { type RegistryConfig } from '../registry.config.js';
import { LOGGER, REGISTRY_CONFIG } from '../registry.tokens.js';
import { systemActor } from './actor.js';
import { ConfigChangesService } from './config-changes.service.js';
import { OutboxRelay } from './outbox-relay.service.js';

/** Thrown inside the change to roll it back when another change or registry got there first. */
class AlreadyPast extends Error {}

/**
 * Keeps the config revision above every revision nodes may have applied. A database restored from
 * a backup counts from below them, and nodes ignore revisions at or below their own, so its config
 * (and every change after the restore) would reach nobody until the count passed theirs again.
 * Every REGISTRY_RELAY_INTERVAL_MS the database's revision is compared with the relay's high-water
 * mark (the highest revision announced or served); when below, one audited config change numbers
 * on past the mark, and its announcement makes every node apply the database's config.
 */
@Injectable()
export class RevisionFloor implements OnApplicationBootstrap, OnModuleDestroy {
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<void> | undefined;

  constructor(
    private readonly snapshots: ConfigSnapshotService,
    private readonly changes: ConfigChangesService,
    private readonly relay: OutboxRelay,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.#timer = setInterval(() => void this.check(), this.config.REGISTRY_RELAY_INTERVAL_MS);
    this.#timer.unref();
    void this.check();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.#timer);
    await this.#checking;
  }

  /** One comparison (and raise, when needed); one at a time. Never rejects. */
  check(): Promise<void> {
    this.#checking ??= this.#check().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  async #check(): Promise<void> {
    try {
      const highWater = await this.relay.highWater();
      if (highWater === 0 || (await this.snapshots.latestRevision()) >= highWater) return;
      const from = await this.changes.apply(
        systemActor('outbox'),
        { configChange: true },
        async (manager) => {
          // Under the config lock: a change or another registry may have passed the mark meanwhile.
          const latest = await this.snapshots.latestRevision(manager);
          if (latest >= highWater) throw new AlreadyPast();
          // Every stored revision is at most `latest`, below the mark: numbering on from it is safe.
          await manager.query("SELECT setval(pg_get_serial_sequence('config_events', 'revision'), $1)", [
            highWater,
          ]);
          return {
            value: latest,
            action: 'config.revision-raise',
            target: `revision:${highWater}`,
            details: { databaseRevision: latest, highWater },
          };
        },
      );
      this.logger.warn(
        { databaseRevision: from, highWater },
        "the database's config revision was below one already announced or served (restored from a backup?): raised past it, so every node applies the database's config",
      );
    } catch (error) {
      if (!(error instanceof AlreadyPast))
        this.logger.warn({ err: error }, 'checking the config revision against the fleet failed');
    }
  }
}
