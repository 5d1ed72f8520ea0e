import { type NodeHeartbeat, type NodeReport } from '@modelgate/config-sync';

/** Most reports kept: a bound on what a token holder can make the registry remember. */
export const MAX_NODE_REPORTS = 5000;

/**
 * Heartbeats nodes sent over HTTP (`POST /v1/nodes/heartbeat`), kept in this process until their
 * TTL runs out: what `GET /v1/status` shows where there is no Redis (standalone) or while Redis is
 * down. Per registry process: with several replicas, each shows the nodes that reported to it.
 */
export class NodeReports {
  private readonly reports = new Map<string, { heartbeat: NodeHeartbeat; expiresAt: number }>();

  constructor(private readonly now: () => number = () => Date.now()) {}

  /** Keeps `report` for `ttlMs` (replacing the node's previous one). */
  record(report: NodeReport, ttlMs: number): void {
    const at = this.now();
    this.prune(at);
    const key = keyOf(report.role, report.id);
    if (!this.reports.has(key) && this.reports.size >= MAX_NODE_REPORTS) {
      // Full: the report closest to expiring makes room.
      const [soonest] = [...this.reports].sort(([, a], [, b]) => a.expiresAt - b.expiresAt)[0] ?? [];
      if (soonest !== undefined) this.reports.delete(soonest);
    }
    this.reports.set(key, {
      heartbeat: { ...report, reasons: report.reasons ?? {}, at },
      expiresAt: at + ttlMs,
    });
  }

  /** Drops a node's report (it is stopping); false when there was none. */
  withdraw(role: string, id: string): boolean {
    return this.reports.delete(keyOf(role, id));
  }

  /** The reports whose TTL has not run out. */
  live(): NodeHeartbeat[] {
    this.prune(this.now());
    return [...this.reports.values()].map((entry) => entry.heartbeat);
  }

  private prune(nowMs: number): void {
    for (const [key, entry] of this.reports) if (entry.expiresAt <= nowMs) this.reports.delete(key);
  }
}

function keyOf(role: string, id: string): string {
  return `${role}/${id}`;
}

/** One heartbeat per node: where Redis and HTTP both have one, the newer. */
export function mergeHeartbeats(...sources: (readonly NodeHeartbeat[])[]): NodeHeartbeat[] {
  const byNode = new Map<string, NodeHeartbeat>();
  for (const beat of sources.flat()) {
    const key = keyOf(beat.role, beat.id);
    const seen = byNode.get(key);
    if (seen === undefined || beat.at > seen.at) byNode.set(key, beat);
  }
  return [...byNode.values()];
}
