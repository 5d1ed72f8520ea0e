import { type ConfigSource } from '@modelgate/config-sync';
import { type ConfigSnapshot } from '@modelgate/contracts';

/** How a relayed source retries and reports. */
export interface RelayedConfigSourceOptions {
  /** How long after a failed apply the same snapshot is tried again, in ms. */
  readonly retryIntervalMs: number;
  readonly onError: (message: string, error: unknown) => void;
}

/**
 * The config source of an event loop in a cluster: snapshots the primary relays (it alone follows
 * the registry). Deliveries run one at a time; a snapshot offered meanwhile waits, and only the
 * newest waiting one is applied (older ones would be ignored anyway). A failed apply is retried
 * after `retryIntervalMs` unless a newer snapshot came, as the registry source's reconcile would.
 */
export class RelayedConfigSource implements ConfigSource {
  private onSnapshot: ((snapshot: ConfigSnapshot) => Promise<void>) | undefined;
  private pending: ConfigSnapshot | undefined;
  private applied: number | undefined;
  private delivering: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private markStarted: () => void = () => undefined;
  /** Settles once start() has tried the snapshot the loop was welcomed with (at once without one). */
  readonly started = new Promise<void>((resolve) => (this.markStarted = resolve));

  /** @param initial the snapshot in force when this loop was welcomed, if the primary had one */
  constructor(
    private readonly options: RelayedConfigSourceOptions,
    initial?: ConfigSnapshot,
  ) {
    this.pending = initial;
  }

  /** The newest revision applied here, if any. */
  get revision(): number | undefined {
    return this.applied;
  }

  /** Resolves once the snapshot the loop was welcomed with (if any) has been applied or has failed. */
  async start(onSnapshot: (snapshot: ConfigSnapshot) => Promise<void>): Promise<void> {
    this.onSnapshot = onSnapshot;
    try {
      await this.deliver();
    } finally {
      this.markStarted();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.delivering;
  }

  /** A snapshot relayed by the primary; applied now, or after the delivery under way. */
  offer(snapshot: ConfigSnapshot): void {
    if (this.applied !== undefined && snapshot.revision <= this.applied) return;
    if (this.pending && snapshot.revision <= this.pending.revision) return;
    this.pending = snapshot;
    void this.deliver();
  }

  /** Applies what is pending, one snapshot at a time; resolves when nothing is left to try now. */
  private deliver(): Promise<void> {
    if (this.delivering) return this.delivering;
    const run = (async () => {
      while (this.pending && this.onSnapshot && !this.stopped) {
        const snapshot = this.pending;
        this.pending = undefined;
        clearTimeout(this.retry);
        try {
          await this.onSnapshot(snapshot);
          this.applied = snapshot.revision;
        } catch (error) {
          this.options.onError(`applying revision ${snapshot.revision} failed; retrying`, error);
          this.scheduleRetry(snapshot);
        }
      }
    })().finally(() => {
      this.delivering = undefined;
    });
    this.delivering = run;
    return run;
  }

  private scheduleRetry(snapshot: ConfigSnapshot): void {
    this.retry = setTimeout(() => {
      const superseded = this.applied !== undefined && this.applied >= snapshot.revision;
      if (this.pending === undefined && !superseded) this.pending = snapshot;
      void this.deliver();
    }, this.options.retryIntervalMs);
    this.retry.unref();
  }
}
