import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { HeartbeatReader, type NodeHeartbeat } from '@modelgate/config-sync';
import { type FleetStatus } from '@modelgate/contracts';
import { ConfigSnapshotService } from '../config-snapshot/config-snapshot.service.js';
import { RegistryMetrics } from '../metrics/registry-metrics.js';
import { type RegistryConfig } from '../registry.config.js';
import { REGISTRY_CONFIG } from '../registry.tokens.js';
import { buildFleetStatus, countNodesByRole } from './fleet-status.js';
import { NodeReports, mergeHeartbeats } from './node-reports.js';

/**
 * The fleet view of `GET /v1/status`: node heartbeats against the latest revision, from Redis and
 * from the reports nodes send over HTTP (without Redis, or while their Redis writes fail). When
 * Redis cannot be read, the HTTP reports alone are shown, with a note saying so.
 */
@Injectable()
export class FleetStatusService implements OnModuleDestroy {
  /** Opened on the first read, so a registry nobody asks about the fleet holds no extra connection. */
  #reader: HeartbeatReader | undefined;

  constructor(
    private readonly snapshots: ConfigSnapshotService,
    private readonly metrics: RegistryMetrics,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(NodeReports) private readonly reports: NodeReports,
  ) {}

  /** Reads heartbeats then the latest revision (in that order, so lag is never negative) and updates `modelgate_nodes`. */
  async current(): Promise<FleetStatus> {
    const redisUrl = this.config.REDIS_URL;
    let fromRedis: NodeHeartbeat[] = [];
    let note: string | undefined;
    if (redisUrl !== undefined) {
      this.#reader ??= new HeartbeatReader(redisUrl, this.config.REDIS_KEY_PREFIX);
      try {
        fromRedis = await this.#reader.read();
      } catch (error) {
        note =
          `cannot read node heartbeats from Redis (${error instanceof Error ? error.message : String(error)}): ` +
          'showing the nodes that reported to this registry over HTTP';
      }
    }
    const heartbeats = mergeHeartbeats(fromRedis, this.reports.live());
    const status = buildFleetStatus(await this.snapshots.latestRevision(), heartbeats, Date.now());
    for (const [role, count] of Object.entries(countNodesByRole(status.nodes))) {
      this.metrics.nodes.set({ role }, count);
    }
    return note === undefined ? status : { ...status, note };
  }

  onModuleDestroy(): void {
    this.#reader?.close();
  }
}
