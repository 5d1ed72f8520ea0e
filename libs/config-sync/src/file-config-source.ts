import { readFile } from 'node:fs/promises';
import { type ConfigSnapshot, droppedKeys, parseConfigSnapshot } from '@modelgate/contracts';
import { type ConfigSource } from './config-source.js';

/**
 * Serves the ConfigSnapshot in a JSON file, read once at start (static deployments). The snapshot
 * schema drops keys it does not know (a newer registry's fields); in a file, often written by hand,
 * such a key is more likely a typo, so each one is reported through `onDroppedKeys`.
 */
export class FileConfigSource implements ConfigSource {
  constructor(
    private readonly path: string,
    private readonly onDroppedKeys: (message: string) => void = () => {},
  ) {}

  async start(onSnapshot: (snapshot: ConfigSnapshot) => Promise<void>): Promise<void> {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(this.path, 'utf8'));
    } catch (error) {
      throw new Error(`cannot read config snapshot ${this.path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const snapshot = parseConfigSnapshot(json);
    const dropped = droppedKeys(json, snapshot);
    if (dropped.length > 0) {
      this.onDroppedKeys(
        `config snapshot ${this.path}: ignored ${dropped.length === 1 ? 'a key' : 'keys'} this node does not know ` +
          `(a typo, or a field of a newer registry): ${dropped.join(', ')}`,
      );
    }
    await onSnapshot(snapshot);
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }
}

/** Serves nothing: a worker without a config source waits, empty and not ready. */
export class EmptyConfigSource implements ConfigSource {
  start(): Promise<void> {
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }
}
