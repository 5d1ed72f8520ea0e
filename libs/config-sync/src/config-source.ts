import { type ConfigSnapshot } from '@modelgate/contracts';

/**
 * Where a node (worker or gateway) learns its config snapshots. A static file today; live sync
 * (registry + Redis) implements the same port.
 */
export interface ConfigSource {
  /** Starts delivering snapshots; the first one arrives before this resolves when available. */
  start(onSnapshot: (snapshot: ConfigSnapshot) => Promise<void>): Promise<void>;
  /** Stops watching; already applied snapshots stay applied. */
  stop(): Promise<void>;
}
