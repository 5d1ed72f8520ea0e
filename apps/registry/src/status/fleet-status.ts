import { type NodeHeartbeat } from '@modelgate/config-sync';

/** Node roles that heartbeat (DESIGN §3.4.3); each gets a `modelgate_nodes{role}` sample. */
export const NODE_ROLES = [
  'gateway',
  'worker',
  'registry',
] as const satisfies readonly NodeHeartbeat['role'][];

/** One node as `GET /v1/status` shows it. */
export interface NodeStatus {
  role: NodeHeartbeat['role'];
  id: string;
  address: string;
  workerGroup?: string;
  /** The config revision the node has applied; null before its first. */
  revision: number | null;
  /** Revisions the node is behind the latest (0 = up to date); null before its first. */
  lag: number | null;
  /** Model id → state on the node (LOADING | READY | FAILED | DRAINING). */
  models: Record<string, string>;
  /** Model id → why it FAILED on the node (only failed models). */
  reasons: Record<string, string>;
  /** On a gateway: endpoint name → whether it can serve it now, and why not. */
  endpoints?: Record<string, { ready: boolean; reason?: string }>;
  /** Milliseconds since the node's last heartbeat. */
  lastSeenMs: number;
}

/** The body of `GET /v1/status`: the latest revision and every node with a live heartbeat. */
export interface FleetStatus {
  revision: number;
  nodes: NodeStatus[];
  /** Why the node list is empty or partial, when it is for a reason other than "no nodes". */
  note?: string;
}

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
    .map((beat): NodeStatus => ({
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
export function countNodesByRole(
  nodes: readonly Pick<NodeStatus, 'role'>[],
): Record<NodeStatus['role'], number> {
  const counts = Object.fromEntries(NODE_ROLES.map((role) => [role, 0])) as Record<
    NodeStatus['role'],
    number
  >;
  for (const node of nodes) counts[node.role] += 1;
  return counts;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
