import { readFile } from 'node:fs/promises';
import { type ConfigSnapshot, parseConfigSnapshot } from '@modelgate/contracts';
import { type ConfigSource } from './config-source.js';

/** Serves the ConfigSnapshot in a JSON file, read once at start (static deployments). */
export class FileConfigSource implements ConfigSource {
  constructor(private readonly path: string) {}

  async start(onSnapshot: (snapshot: ConfigSnapshot) => Promise<void>): Promise<void> {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(this.path, 'utf8'));
    } catch (error) {
      throw new Error(`cannot read config snapshot ${this.path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    await onSnapshot(parseConfigSnapshot(json));
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
