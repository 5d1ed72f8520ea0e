import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type Logger } from '@modelgate/observability';
import { DataSource } from 'typeorm';
import { RegistryMetrics } from '../metrics/registry-metrics.js';
import { type RegistryConfig } from '../registry.config.js';
import { LOGGER, REGISTRY_CONFIG } from '../registry.tokens.js';
import { CONFIG_BUS, type ConfigBus } from './config-bus.js';

/**
 * Announces committed revisions and marks them published. Announcing N covers every revision up
 * to N (subscribers fetch the latest snapshot), so the relay loop only needs the newest
 * unpublished revision: after a crash between commit and announce, or while Redis is down, it
 * publishes it within REGISTRY_RELAY_INTERVAL_MS of Redis coming back.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  #timer: NodeJS.Timeout | undefined;
  /** Announcements run one at a time, in order. */
  #chain: Promise<void> = Promise.resolve();
  /** Highest revision seen committed, for the gauge. */
  #latest = 0;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(CONFIG_BUS) private readonly bus: ConfigBus,
    private readonly metrics: RegistryMetrics,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.#timer = setInterval(() => void this.relayPending(), this.config.REGISTRY_RELAY_INTERVAL_MS);
    this.#timer.unref();
    void this.relayPending();
  }

  /** Before the database pool closes (onApplicationShutdown), so no pass runs without it. */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.#timer);
    await this.#chain;
    await this.bus.close();
  }

  /** Raises the bus's high-water mark to a revision served to a node. Never rejects. */
  noteServed(revision: number): void {
    this.bus.noteServed(revision).catch((error: unknown) => {
      this.logger.debug({ err: error, revision }, 'could not note a served config revision');
    });
  }

  /** The highest revision ever announced or served; 0 when unknown (Redis down). Never rejects. */
  highWater(): Promise<number> {
    return this.bus.highWater().catch(() => 0);
  }

  /** Publishes `revision` and marks it and every earlier revision published. Never rejects. */
  announce(revision: number): Promise<void> {
    const run = this.#chain.then(async () => {
      this.#noteRevision(revision);
      try {
        await this.bus.publish(revision);
      } catch (error) {
        this.logger.warn({ err: error, revision }, 'could not announce config revision; the relay retries');
        return;
      }
      await this.dataSource.query(
        'UPDATE config_events SET published_at = now() WHERE revision <= $1 AND published_at IS NULL',
        [revision],
      );
    });
    this.#chain = run.catch((error: unknown) => {
      this.logger.error({ err: error, revision }, 'announcing a config revision failed');
    });
    return this.#chain;
  }

  /**
   * One relay pass: announces the newest unpublished revision, if any. One round trip, also when
   * nothing is pending (the usual pass): the latest committed revision, for the gauge, comes along.
   */
  async relayPending(): Promise<void> {
    try {
      const rows = await this.dataSource.query<{ pending: string | null; latest: string }[]>(
        `SELECT (SELECT max(revision) FROM config_events WHERE published_at IS NULL) AS pending,
                (SELECT coalesce(max(revision), 0) FROM config_events) AS latest`,
      );
      const pending = rows[0]?.pending;
      if (pending === null || pending === undefined) {
        this.#noteRevision(Number(rows[0]?.latest ?? 0));
        return;
      }
      this.logger.info({ revision: Number(pending) }, 'relaying unannounced config revision');
      await this.announce(Number(pending));
    } catch (error) {
      this.logger.warn({ err: error }, 'outbox relay pass failed');
    }
  }

  #noteRevision(revision: number): void {
    this.#latest = Math.max(this.#latest, revision);
    this.metrics.configRevision.set(this.#latest);
  }
}
