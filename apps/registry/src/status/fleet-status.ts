import { type NodeHeartbeat } from '@modelgate/config-sync';
import { type FleetStatus, NODE_ROLES, type NodeRole, type NodeStatusView } from '@modelgate/contracts';

/**
 * The fleet view from the latest revision and the live heartbeats read at `nowMs`: nodes sorted
 * by role then id, lag = latest − applied (never below 0: a heartbeat read just after a commit
 * may already carry a revision newer than the one read before it).
 */
export function buildFleetStatus(
  latestRevision: number,
  heartbeats: readonly NodeHeartbeat[],
  nowMs: number,
): FleetStatus {
  const nodes = heartbeats
    .map((beat): NodeStatusView => ({
      role: beat.role,
      id: beat.id,
      address: beat.address,
      ...(beat.workerGroup === undefined ? {} : { workerGroup: beat.workerGroup }),
      revision: beat.revision,
      lag: beat.revision === null ? null : Math.max(0, latestRevision - beat.revision),
      models: beat.models,
      reasons: beat.reasons,
      ...(beat.endpoints === undefined ? {} : { endpoints: beat.endpoints }),
      lastSeenMs: Math.max(0, nowMs - beat.at),
    }))
    .sort((a, b) => compare(a.role, b.role) || compare(a.id, b.id));
  return { revision: latestRevision, nodes };
}

/** Live nodes per role, every role present (0 when none), for the `modelgate_nodes` gauge. */
export function countNodesByRole(nodes: readonly Pick<NodeStatusView, 'role'>[]): Record<NodeRole, number> {
  const counts = Object.fromEntries(NODE_ROLES.map((role) => [role, 0])) as Record<NodeRole, number>;
  for (const node of nodes) counts[node.role] += 1;
  return counts;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
