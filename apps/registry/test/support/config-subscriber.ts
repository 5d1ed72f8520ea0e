import { Redis } from 'ioredis';
import { TEST_REDIS_URL } from '@modelgate/testing';

/** Listens on `<prefix>:config` like a gateway or worker would, recording every announced revision. */
export class ConfigSubscriber {
  readonly revisions: number[] = [];
  readonly #redis = new Redis(TEST_REDIS_URL);

  private constructor(readonly channel: string) {}

  static async start(keyPrefix: string): Promise<ConfigSubscriber> {
    const subscriber = new ConfigSubscriber(`${keyPrefix}:config`);
    subscriber.#redis.on('message', (_channel: string, message: string) => {
      subscriber.revisions.push((JSON.parse(message) as { revision: number }).revision);
    });
    await subscriber.#redis.subscribe(subscriber.channel);
    return subscriber;
  }

  close(): void {
    this.#redis.disconnect();
  }
}
