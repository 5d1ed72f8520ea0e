import { createMetricsRegistry, Gauge, type Registry } from '@modelgate/observability';

/** Node roles that heartbeat to the registry (DESIGN §3.4). */
const NODE_ROLES = ['gateway', 'worker'] as const;

/** The registry's Prometheus metrics (DESIGN §3.7). */
export class RegistryMetrics {
  readonly registry: Registry = createMetricsRegistry('registry');

  /** Latest committed config revision. */
  readonly configRevision = new Gauge({
    name: 'modelgate_config_revision',
    help: 'Latest committed config revision',
    registers: [this.registry],
  });

  /** Live nodes by role, from heartbeats; refreshed on each `GET /v1/status`. */
  readonly nodes = new Gauge({
    name: 'modelgate_nodes',
    help: 'Nodes with a live heartbeat, by role',
    labelNames: ['role'],
    registers: [this.registry],
  });

  constructor() {
    for (const role of NODE_ROLES) this.nodes.set({ role }, 0);
  }
}
