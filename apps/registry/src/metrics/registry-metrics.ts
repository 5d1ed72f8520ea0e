import { Counter, createMetricsRegistry, Gauge, type Registry } from '@modelgate/observability';

/** Node roles that heartbeat to the registry (DESIGN §3.4). */
const NODE_ROLES = ['gateway', 'worker'] as const;

/** The registry's Prometheus metrics (DESIGN §3.7). */
export class RegistryMetrics {
  readonly registry: Registry = createMetricsRegistry('registry');

  /**
   * Latest committed config revision: minus a node's modelgate_config_revision (what it applied),
   * that node's config lag.
   */
  readonly configRevision = new Gauge({
    name: 'modelgate_registry_config_revision',
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

  /**
   * The candidate's share of served traffic, in percent, per rollout in progress (0 while warming
   * up or mirroring); gone once the rollout ends. Labelled `serving_endpoint`: the Prometheus
   * Operator sets `endpoint` on every target itself.
   */
  readonly rolloutPercent = new Gauge({
    name: 'modelgate_rollout_candidate_percent',
    help: 'Share of served traffic the candidate of a rollout in progress takes, in percent',
    labelNames: ['serving_endpoint', 'model', 'version'],
    registers: [this.registry],
  });

  /** Window decisions this registry made: promote, hold or rollback. */
  readonly rolloutDecisions = new Counter({
    name: 'modelgate_rollout_decisions_total',
    help: 'Rollout window decisions made by this registry, by serving endpoint and decision',
    labelNames: ['serving_endpoint', 'decision'],
    registers: [this.registry],
  });

  constructor() {
    for (const role of NODE_ROLES) this.nodes.set({ role }, 0);
  }
}
