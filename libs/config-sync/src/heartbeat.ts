import { Redis } from 'ioredis';
import { heartbeatIndexKey, heartbeatKey } from './channels.js';
import { type NodeHeartbeat, type NodeReport, parseHeartbeat } from './node-heartbeat.js';
import { type RegistryReportTarget, postHeartbeat, withdrawHeartbeat } from './registry-heartbeat.js';

/** How a node heartbeats: to Redis, to the registry over HTTP, or to Redis with the registry as fallback. */
export interface HeartbeatOptions {
  /** Redis, where heartbeats serve discovery and status. */
  redisUrl?: string;
  /**
   * The registry, which takes heartbeats over HTTP for its status view: the only path without
   * Redis (standalone), and the fallback when a Redis write fails.
   */
  registry?: RegistryReportTarget;
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

/**
 * Writes the node's heartbeat with a TTL, renewed on an interval (DESIGN §3.4.3): to Redis, and to
 * the registry over HTTP when there is no Redis or a Redis write failed.
 */
export class HeartbeatPublisher {
  private readonly redis: Redis | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly ttlMs: number;
  /** Whether a report went to the registry over HTTP (then stop withdraws it there too). */
  private reportedOverHttp = false;

  constructor(private readonly options: HeartbeatOptions) {
    if (options.redisUrl === undefined && options.registry === undefined) {
      throw new Error('a heartbeat needs a Redis URL or a registry to report to');
    }
    this.ttlMs = options.ttlMs ?? 6000;
    if (options.redisUrl !== undefined) {
      this.redis = new Redis(options.redisUrl, {
        connectionName: 'modelgate-heartbeat',
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
      });
      this.redis.on('error', (error) => options.onError?.('redis heartbeat connection error', error));
    }
  }

  /**
   * Beats as soon as the connection is up (and again after every reconnect), then every interval.
   * Beating before the first connect would only fail: the offline queue is off on purpose, so a
   * stale beat is never written late.
   */
  start(): void {
    if (!this.redis || this.redis.status === 'ready') void this.beat();
    this.redis?.on('ready', () => void this.beat());
    this.timer = setInterval(() => void this.beat(), this.options.intervalMs ?? Math.floor(this.ttlMs / 3));
    this.timer.unref();
  }

  /** Writes one heartbeat now (e.g. right after a state change). */
  async beat(): Promise<void> {
    const report = this.options.describe();
    if (this.redis) {
      try {
        await writeHeartbeat(this.redis, this.options.keyPrefix ?? 'modelgate', report, this.ttlMs);
        return;
      } catch (error) {
        this.options.onError?.('writing the heartbeat failed', error);
      }
    }
    if (!this.options.registry) return;
    try {
      await postHeartbeat(this.options.registry, report, this.ttlMs);
      this.reportedOverHttp = true;
    } catch (error) {
      this.options.onError?.('reporting the heartbeat to the registry failed', error);
    }
  }

  /** Stops beating and removes the heartbeat, so the node leaves routing at once. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    const report = this.options.describe();
    if (this.options.registry && this.reportedOverHttp) {
      await withdrawHeartbeat(this.options.registry, report.role, report.id).catch(() => undefined);
    }
    if (!this.redis) return;
    const prefix = this.options.keyPrefix ?? 'modelgate';
    const key = heartbeatKey(prefix, report.role, report.id);
    await this.redis
      .multi()
      .del(key)
      .zrem(heartbeatIndexKey(prefix), key)
      .exec()
      .catch(() => undefined);
    this.redis.disconnect();
  }
}

/**
 * Index entries this long past their expiry are dropped by readers. Generous, because writer and
 * reader clocks may disagree; a dead node's entry costs only a key that reads as nothing meanwhile.
 */
const INDEX_GRACE_MS = 10 * 60_000;

/**
 * Writes one heartbeat: its key with a TTL (Redis expires a dead node's), and the key in the node
 * index with when it should expire, in one transaction.
 */
export async function writeHeartbeat(
  redis: Redis,
  keyPrefix: string,
  report: NodeReport,
  ttlMs: number,
  at = Date.now(),
): Promise<void> {
  const key = heartbeatKey(keyPrefix, report.role, report.id);
  const results = await redis
    .multi()
    .set(key, JSON.stringify({ ...report, at }), 'PX', ttlMs)
    .zadd(heartbeatIndexKey(keyPrefix), at + ttlMs, key)
    .exec();
  const failed = results?.find(([error]) => error !== null)?.[0];
  if (failed) throw failed;
}

/**
 * Reads every live heartbeat from the node index (ZRANGE + MGET; a key Redis expired reads as
 * nothing), never scanning the key space. Entries long past their expiry are pruned on the way.
 */
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
    const index = heartbeatIndexKey(this.keyPrefix);
    const [pruned, listed] =
      (await this.redis
        .multi()
        .zremrangebyscore(index, '-inf', Date.now() - INDEX_GRACE_MS)
        .zrange(index, 0, -1)
        .exec()) ?? [];
    const error = pruned?.[0] ?? listed?.[0];
    if (error) throw error;
    const keys = (listed?.[1] as string[] | undefined) ?? [];
    if (keys.length === 0) return [];
    const values = await this.redis.mget(...keys);
    return values.map(parseHeartbeat).filter((h): h is NodeHeartbeat => h !== undefined);
  }

  close(): void {
    this.redis.disconnect();
  }
}
