import { Redis } from 'ioredis';
import { heartbeatKey, heartbeatPattern } from './channels.js';
import { type NodeHeartbeat, type NodeReport, parseHeartbeat } from './node-heartbeat.js';

/** How a node heartbeats. */
export interface HeartbeatOptions {
  redisUrl: string;
  /** Key prefix shared with the registry. @defaultValue 'modelgate' */
  keyPrefix?: string;
  /** How long a heartbeat stays without renewal, in ms: a dead node drops out after this. @defaultValue 6000 */
  ttlMs?: number;
  /** How often it is renewed, in ms. @defaultValue ttlMs / 3 */
  intervalMs?: number;
  /** The node's current report. */
  describe: () => NodeReport;
  onError?: (message: string, error: unknown) => void;
}

/** Writes the node's heartbeat to Redis with a TTL, renewed on an interval (DESIGN §3.4.3). */
export class HeartbeatPublisher {
  private readonly redis: Redis;
  private timer: NodeJS.Timeout | undefined;
  private readonly ttlMs: number;

  constructor(private readonly options: HeartbeatOptions) {
    this.ttlMs = options.ttlMs ?? 6000;
    this.redis = new Redis(options.redisUrl, {
      connectionName: 'modelgate-heartbeat',
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
    });
    this.redis.on('error', (error) => options.onError?.('redis heartbeat connection error', error));
  }

  /**
   * Beats as soon as the connection is up (and again after every reconnect), then every interval.
   * Beating before the first connect would only fail: the offline queue is off on purpose, so a
   * stale beat is never written late.
   */
  start(): void {
    if (this.redis.status === 'ready') void this.beat();
    this.redis.on('ready', () => void this.beat());
    this.timer = setInterval(() => void this.beat(), this.options.intervalMs ?? Math.floor(this.ttlMs / 3));
    this.timer.unref();
  }

  /** Writes one heartbeat now (e.g. right after a state change). */
  async beat(): Promise<void> {
    const report = this.options.describe();
    const key = heartbeatKey(this.options.keyPrefix ?? 'modelgate', report.role, report.id);
    try {
      await this.redis.set(key, JSON.stringify({ ...report, at: Date.now() }), 'PX', this.ttlMs);
    } catch (error) {
      this.options.onError?.('writing the heartbeat failed', error);
    }
  }

  /** Stops beating and removes the heartbeat, so the node leaves routing at once. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    const report = this.options.describe();
    await this.redis
      .del(heartbeatKey(this.options.keyPrefix ?? 'modelgate', report.role, report.id))
      .catch(() => undefined);
    this.redis.disconnect();
  }
}

/** Reads every live heartbeat (SCAN + MGET; expired ones are gone by TTL). */
export class HeartbeatReader {
  private readonly redis: Redis;

  constructor(
    redisUrl: string,
    private readonly keyPrefix = 'modelgate',
  ) {
    this.redis = new Redis(redisUrl, {
      connectionName: 'modelgate-heartbeat-reader',
      maxRetriesPerRequest: 1,
    });
    this.redis.on('error', () => undefined);
  }

  async read(): Promise<NodeHeartbeat[]> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await this.redis.scan(
        cursor,
        'MATCH',
        heartbeatPattern(this.keyPrefix),
        'COUNT',
        200,
      );
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    if (keys.length === 0) return [];
    const values = await this.redis.mget(...keys);
    return values.map(parseHeartbeat).filter((h): h is NodeHeartbeat => h !== undefined);
  }

  close(): void {
    this.redis.disconnect();
  }
}
