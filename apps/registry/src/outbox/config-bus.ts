import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import { configChannel, configMessage } from '@modelgate/config-sync';

/** Announces config revisions to the fleet (DESIGN §3.4). */
export interface ConfigBus {
  /** Tells every subscriber that `revision` is committed; rejects when it could not be sent. */
  publish(revision: number): Promise<void>;
  close(): Promise<void>;
}

/** Injection token of the ConfigBus. */
export const CONFIG_BUS = Symbol('CONFIG_BUS');

/** Publishes `{"revision":N}` on `<prefix>:config`. */
export class RedisConfigBus implements ConfigBus {
  readonly #redis: Redis;
  readonly #channel: string;

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
  }

  async publish(revision: number): Promise<void> {
    await this.#redis.publish(this.#channel, configMessage(revision));
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
    return Promise.resolve();
  }
}

/** Standalone mode without Redis: revisions go to listeners in this process. */
export class InProcessConfigBus implements ConfigBus {
  readonly #events = new EventEmitter();

  /** Calls `listener` with every published revision; returns the unsubscribe function. */
  subscribe(listener: (revision: number) => void): () => void {
    this.#events.on('revision', listener);
    return () => this.#events.off('revision', listener);
  }

  publish(revision: number): Promise<void> {
    this.#events.emit('revision', revision);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#events.removeAllListeners();
    return Promise.resolve();
  }
}
