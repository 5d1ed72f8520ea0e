import { type ConfigSnapshot } from '@modelgate/contracts';

/**
 * Where the worker learns which models to serve. A static file today; live config sync
 * (registry + Redis) implements the same port.
 */
export interface ConfigSource {
  /** Starts delivering snapshots; the first one arrives before this resolves when available. */
  start(onSnapshot: (snapshot: ConfigSnapshot) => Promise<void>): Promise<void>;
  /** Stops watching; already applied snapshots stay applied. */
  stop(): Promise<void>;
}

/** Nest injection token for the active ConfigSource. */
export const CONFIG_SOURCE = Symbol('CONFIG_SOURCE');
