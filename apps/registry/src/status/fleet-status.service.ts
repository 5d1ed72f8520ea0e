import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { HeartbeatReader, type NodeHeartbeat } from '@modelgate/config-sync';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { ConfigSnapshotService } from '../config-snapshot/config-snapshot.service.js';
import { RegistryMetrics } from '../metrics/registry-metrics.js';
import { type RegistryConfig } from '../registry.config.js';
import { REGISTRY_CONFIG } from '../registry.tokens.js';
import { buildFleetStatus, countNodesByRole, type FleetStatus } from './fleet-status.js';

/** Said in place of nodes when the registry runs without Redis (standalone, in-process sync). */
export const NO_REDIS_NOTE =
  'REDIS_URL is not set: nodes heartbeat through Redis, so this registry cannot see them';

/** The fleet view of `GET /v1/status`: node heartbeats from Redis against the latest revision. */
@Injectable()
export class FleetStatusService implements OnModuleDestroy {
  /** Opened on the first read, so a registry nobody asks about the fleet holds no extra connection. */
  #reader: HeartbeatReader | undefined;

  constructor(
    private readonly snapshots: ConfigSnapshotService,
    private readonly metrics: RegistryMetrics,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
  ) {}

  /** Reads heartbeats then the latest revision (in that order, so lag is never negative) and updates `modelgate_nodes`. */
  async current(): Promise<FleetStatus> {
    const redisUrl = this.config.REDIS_URL;
    if (redisUrl === undefined) {
      return {
        ...buildFleetStatus(await this.snapshots.latestRevision(), [], Date.now()),
        note: NO_REDIS_NOTE,
      };
    }
    this.#reader ??= new HeartbeatReader(redisUrl, this.config.REDIS_KEY_PREFIX);
    const heartbeats = await readHeartbeats(this.#reader);
    const status = buildFleetStatus(await this.snapshots.latestRevision(), heartbeats, Date.now());
    for (const [role, count] of Object.entries(countNodesByRole(status.nodes))) {
      this.metrics.nodes.set({ role }, count);
    }
    return status;
  }

  onModuleDestroy(): void {
    this.#reader?.close();
  }
}

async function readHeartbeats(reader: HeartbeatReader): Promise<NodeHeartbeat[]> {
  try {
    return await reader.read();
  } catch (error) {
    throw new ModelgateError(
      ErrorCode.UNAVAILABLE,
      `cannot read node heartbeats from Redis: ${error instanceof Error ? error.message : String(error)}`,
      {},
      { cause: error },
    );
  }
}
