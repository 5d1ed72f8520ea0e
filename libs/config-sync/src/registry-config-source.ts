import { type ConfigSnapshot, parseConfigSnapshot } from '@modelgate/contracts';
import { Redis } from 'ioredis';
import { configChannel, parseConfigMessage } from './channels.js';
import { type ConfigSource } from './config-source.js';

/** Deadline of one snapshot fetch, in ms. */
const FETCH_TIMEOUT_MS = 5000;

/** Where to reach the registry and Redis, and how eagerly to reconcile. */
export interface RegistryConfigSourceOptions {
  /** Base URL of the registry, e.g. `http://registry:8081`. */
  registryUrl: string;
  /** Bearer token for `GET /v1/config/snapshot` (a viewer token is enough). */
  token?: string;
  /** Redis URL for revision announcements; without it the reconcile poll alone keeps up. */
  redisUrl?: string;
  /** Key prefix shared with the registry. @defaultValue 'modelgate' */
  keyPrefix?: string;
  /** How often to ask the registry for a newer revision even without an announcement, in ms. @defaultValue 3000 */
  reconcileIntervalMs?: number;
  /** Where failures are reported; they never stop the source. */
  onError?: (message: string, error: unknown) => void;
}

/**
 * Follows the registry (DESIGN §3.4): fetches `GET /v1/config/snapshot` when Redis announces a
 * newer revision, after every Redis (re)connect, and on a reconcile timer — so a lost
 * announcement costs seconds, not correctness. Fetches never overlap; a trigger during a fetch
 * causes one more fetch after it. Snapshots are validated and only newer revisions are applied.
 * When the registry or Redis is down the last applied snapshot stays in force.
 */
export class RegistryConfigSource implements ConfigSource {
  private applied: number | undefined;
  private onSnapshot: ((snapshot: ConfigSnapshot) => Promise<void>) | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private subscriber: Redis | undefined;
  private stopped = false;

  constructor(private readonly options: RegistryConfigSourceOptions) {}

  /** The revision applied last, if any. */
  get revision(): number | undefined {
    return this.applied;
  }

  async start(onSnapshot: (snapshot: ConfigSnapshot) => Promise<void>): Promise<void> {
    this.onSnapshot = onSnapshot;
    const { redisUrl } = this.options;
    if (redisUrl) this.subscribe(redisUrl);
    this.timer = setInterval(() => void this.trigger(), this.options.reconcileIntervalMs ?? 3000);
    this.timer.unref();
    await this.trigger();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.subscriber?.disconnect();
    await this.running;
  }

  /** Fetches now (or once more after the running fetch); resolves when that fetch is done. */
  trigger(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const run = (async () => {
      do {
        this.again = false;
        await this.fetchAndApply();
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private announce(revision: number): void {
    if (this.applied === undefined || revision > this.applied) void this.trigger();
  }

  private subscribe(redisUrl: string): void {
    const prefix = this.options.keyPrefix ?? 'modelgate';
    const subscriber = new Redis(redisUrl, {
      connectionName: 'modelgate-config-sync',
      maxRetriesPerRequest: null,
    });
    subscriber.on('error', (error) => this.options.onError?.('redis subscriber error', error));
    // Every (re)connect may have missed announcements: catch up.
    subscriber.on('ready', () => void this.trigger());
    subscriber.on('message', (_channel: string, message: string) => {
      const revision = parseConfigMessage(message);
      if (revision !== undefined) this.announce(revision);
    });
    subscriber.subscribe(configChannel(prefix)).catch((error: unknown) => {
      this.options.onError?.('redis subscribe failed', error);
    });
    this.subscriber = subscriber;
  }

  private async fetchAndApply(): Promise<void> {
    const { registryUrl, token } = this.options;
    let snapshot: ConfigSnapshot;
    try {
      // Under the registry URL's own path (`http://ingress/modelgate`), as heartbeats and admin calls go.
      const response = await fetch(`${registryUrl.replace(/\/+$/, '')}/v1/config/snapshot`, {
        headers: {
          accept: 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(this.applied !== undefined ? { 'if-none-match': `"${this.applied}"` } : {}),
        },
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
      if (response.status === 304) return;
      if (!response.ok)
        throw new Error(`registry answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
      snapshot = parseConfigSnapshot(await response.json());
    } catch (error) {
      this.options.onError?.('fetching the config snapshot failed; keeping the last one', error);
      return;
    }
    if (this.applied !== undefined && snapshot.revision <= this.applied) return;
    try {
      await this.onSnapshot?.(snapshot);
      this.applied = snapshot.revision;
    } catch (error) {
      this.options.onError?.(`applying revision ${snapshot.revision} failed`, error);
    }
  }
}
