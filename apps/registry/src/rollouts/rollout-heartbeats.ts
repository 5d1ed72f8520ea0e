import { HeartbeatReader, type NodeHeartbeat } from '@modelgate/config-sync';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';

/** Injection token of the HeartbeatSource rollouts read. */
export const ROLLOUT_HEARTBEATS = Symbol('ROLLOUT_HEARTBEATS');

/** Said when a rollout is asked for without Redis: nothing carries the gateways' numbers. */
export const ROLLOUTS_NEED_REDIS =
  'rollouts need Redis: the gateways report each candidate’s numbers in their heartbeats, which go ' +
  'through Redis; start the registry, gateways and workers with REDIS_URL (modelgate route set ' +
  'still moves traffic by hand)';

/** Where rollouts read the fleet's heartbeats: workers' model states, gateways' traffic counters. */
export interface HeartbeatSource {
  /** False without Redis: rollouts cannot be judged, so they are refused. */
  readonly available: boolean;
  /** Every live heartbeat; UNAVAILABLE when Redis cannot be read. */
  read(): Promise<NodeHeartbeat[]>;
  close(): void;
}

/** Heartbeats from Redis (the node index the gateways' discovery reads too). */
export class RedisHeartbeatSource implements HeartbeatSource {
  readonly available = true;
  /** Opened on the first read: a registry that never runs a rollout holds no extra connection. */
  #reader: HeartbeatReader | undefined;

  constructor(
    private readonly redisUrl: string,
    private readonly keyPrefix: string,
  ) {}

  async read(): Promise<NodeHeartbeat[]> {
    this.#reader ??= new HeartbeatReader(this.redisUrl, this.keyPrefix);
    try {
      return await this.#reader.read();
    } catch (error) {
      throw new ModelgateError(
        ErrorCode.UNAVAILABLE,
        `cannot read node heartbeats from Redis: ${error instanceof Error ? error.message : String(error)}`,
        {},
        { cause: error },
      );
    }
  }

  close(): void {
    this.#reader?.close();
    this.#reader = undefined;
  }
}

/** No Redis (standalone, in-process sync): no heartbeats, so no rollouts. */
export class NoHeartbeatSource implements HeartbeatSource {
  readonly available = false;

  read(): Promise<NodeHeartbeat[]> {
    return Promise.reject(new ModelgateError(ErrorCode.UNAVAILABLE, ROLLOUTS_NEED_REDIS));
  }

  close(): void {}
}
