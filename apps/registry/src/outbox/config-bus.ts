import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import { configChannel, configMessage } from '@modelgate/config-sync';

/** Announces config revisions to the fleet (DESIGN §3.4). */
export interface ConfigBus {
  /**
   * Tells every subscriber that `revision` is committed, and raises the high-water mark to it;
   * rejects when it could not be sent.
   */
  publish(revision: number): Promise<void>;
  /** Raises the high-water mark to `revision`, a snapshot just served (nodes may apply it unannounced). */
  noteServed(revision: number): Promise<void>;
  /**
   * The highest revision ever announced or served, 0 when none is known. It outlives the database's
   * own count: a database restored from a backup counts from below it (see OutboxRelay).
   */
  highWater(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Raises the number at KEYS[1] to ARGV[1] (never lowers it); publishes ARGV[3] on ARGV[2] if given.
 * A value that is not a number (written by hand, say) counts as 0 and is replaced: compared as it
 * was, it failed the script, and with it every announcement.
 */
const RAISE_HIGH_WATER = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if tonumber(ARGV[1]) > current then redis.call('SET', KEYS[1], ARGV[1]) end
if ARGV[2] then redis.call('PUBLISH', ARGV[2], ARGV[3]) end
return 1`;

/** The Redis key of the high-water mark: `<prefix>:config-high-water`. */
export function highWaterKey(keyPrefix: string): string {
  return `${keyPrefix}:config-high-water`;
}

/** Injection token of the ConfigBus. */
export const CONFIG_BUS = Symbol('CONFIG_BUS');

/**
 * Publishes `{"revision":N}` on `<prefix>:config`; the high-water mark is a key beside it, shared
 * by every registry of the deployment and kept when the database is restored.
 */
export class RedisConfigBus implements ConfigBus {
  readonly #redis: Redis;
  readonly #channel: string;
  readonly #highWaterKey: string;

  constructor(redisUrl: string, keyPrefix: string) {
    // No offline queue: a publish while Redis is down fails at once and the relay retries it,
    // instead of piling up behind a reconnect.
    this.#redis = new Redis(redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectionName: 'modelgate-registry-config-bus',
    });
    this.#redis.on('error', () => {
      // Reconnects on its own; failed publishes are retried by the relay.
    });
    this.#channel = configChannel(keyPrefix);
    this.#highWaterKey = highWaterKey(keyPrefix);
  }

  async publish(revision: number): Promise<void> {
    // One script: the mark is never below an announced revision.
    await this.#redis.eval(
      RAISE_HIGH_WATER,
      1,
      this.#highWaterKey,
      String(revision),
      this.#channel,
      configMessage(revision),
    );
  }

  async noteServed(revision: number): Promise<void> {
    await this.#redis.eval(RAISE_HIGH_WATER, 1, this.#highWaterKey, String(revision));
  }

  async highWater(): Promise<number> {
    const value = await this.#redis.get(this.#highWaterKey);
    const parsed = value === null ? 0 : Number(value);
    return Number.isSafeInteger(parsed) && parsed > 0 ? parsed : 0;
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
    return Promise.resolve();
  }
}

/**
 * Standalone mode without Redis: revisions go to listeners in this process, and the high-water
 * mark lives as long as the process (a database restored while it runs is caught).
 */
export class InProcessConfigBus implements ConfigBus {
  readonly #events = new EventEmitter();
  #highWater = 0;

  /** Calls `listener` with every published revision; returns the unsubscribe function. */
  subscribe(listener: (revision: number) => void): () => void {
    this.#events.on('revision', listener);
    return () => this.#events.off('revision', listener);
  }

  publish(revision: number): Promise<void> {
    this.#highWater = Math.max(this.#highWater, revision);
    this.#events.emit('revision', revision);
    return Promise.resolve();
  }

  noteServed(revision: number): Promise<void> {
    this.#highWater = Math.max(this.#highWater, revision);
    return Promise.resolve();
  }

  highWater(): Promise<number> {
    return Promise.resolve(this.#highWater);
  }

  close(): Promise<void> {
    this.#events.removeAllListeners();
    return Promise.resolve();
  }
}
