/**
 * One heartbeat for a gateway pod of several event loops. Each loop reports to the cluster primary
 * what only it knows; the primary beats once for the pod with the latest report of every live loop
 * merged, in this order:
 *
 *  1. revision: the lowest any reporting loop has applied, null while one has applied none (or
 *     none has reported): the pod has a revision once every loop serves it.
 *  2. reasons: every loop's unservable models (the first reason seen per model).
 *  3. endpoints: servable only when every reporting loop says so; otherwise the first not-ready
 *     loop's reason, or "not yet configured on every event loop" when some loop lacks it.
 *  4. traffic: summed over the live loops plus the last report of every loop that exited, under
 *     the primary's epoch, so the counters rollouts diff never go back while the primary lives
 *     (a crashed loop loses only what it counted after its last report).
 *
 * Loops that have not reported yet (just forked) are left out.
 */
import {
  type ModelTraffic,
  type NodeReport,
  type TrafficReport,
  emptyModelTraffic,
} from '@modelgate/config-sync';
import { type EndpointServability } from '../health/endpoint-servability.js';

/** Who the pod is in its heartbeat: role gateway, the primary's id and the pod's address. */
export type PodIdentity = Pick<NodeReport, 'id' | 'address'>;

/** Per-endpoint, per-model traffic counters (TrafficReport['endpoints']). */
export type TrafficCounters = TrafficReport['endpoints'];

const NOT_ON_EVERY_LOOP = 'not yet configured on every event loop';

/** `more` added into `total` (which is changed), model by model and bucket by bucket. */
export function addTraffic(total: TrafficCounters, more: TrafficCounters, bucketCount: number): void {
  for (const [endpoint, models] of Object.entries(more)) {
    const into = (total[endpoint] ??= {});
    for (const [model, counts] of Object.entries(models)) {
      const sum: ModelTraffic = (into[model] ??= emptyModelTraffic(bucketCount));
      sum.served += counts.served;
      sum.failed += counts.failed;
      sum.mirrored += counts.mirrored;
      sum.mirrorFailed += counts.mirrorFailed;
      sum.agreeing += counts.agreeing;
      sum.disagreeing += counts.disagreeing;
      counts.latency.forEach((count, i) => (sum.latency[i] = (sum.latency[i] ?? 0) + count));
    }
  }
}

/** Merges endpoint verdicts (rule 3). */
function mergeEndpoints(reports: readonly NodeReport[]): Record<string, EndpointServability> {
  const names = new Set(reports.flatMap((report) => Object.keys(report.endpoints ?? {})));
  const merged: Record<string, EndpointServability> = {};
  for (const name of [...names].sort()) {
    const verdicts = reports.map((report) => report.endpoints?.[name]);
    const notReady = verdicts.find((verdict) => verdict !== undefined && !verdict.ready);
    if (notReady) merged[name] = notReady;
    else if (verdicts.includes(undefined)) merged[name] = { ready: false, reason: NOT_ON_EVERY_LOOP };
    else merged[name] = { ready: true };
  }
  return merged;
}

/** The latest report of each live event loop, and the traffic of those that exited. */
export class PodReport {
  private readonly loops = new Map<number, NodeReport>();
  private readonly retired: TrafficCounters = {};

  /**
   * @param identity the pod's id and address in its heartbeat
   * @param epoch names the pod's traffic counters: new per primary process
   * @param latencyBoundsSeconds the loops' latency buckets; traffic reported with others is ignored
   */
  constructor(
    private readonly identity: PodIdentity,
    private readonly epoch: string,
    private readonly latencyBoundsSeconds: readonly number[],
  ) {}

  /** Keeps `report` as loop `loop`'s latest; true when it changed the pod's revision. */
  record(loop: number, report: NodeReport): boolean {
    const before = this.describe().revision;
    this.loops.set(loop, report);
    return this.describe().revision !== before;
  }

  /** Loop `loop` exited: its last traffic stays in the pod's totals, the rest is forgotten. */
  retire(loop: number): void {
    const last = this.loops.get(loop);
    this.loops.delete(loop);
    const traffic = last?.traffic;
    if (traffic && this.sameBounds(traffic)) {
      addTraffic(this.retired, traffic.endpoints, this.latencyBoundsSeconds.length + 1);
    }
  }

  /** The pod's heartbeat report (rules in this file's top comment). */
  describe(): NodeReport {
    const reports = [...this.loops.values()];
    const revisions = reports.map((report) => report.revision);
    const reasons: Record<string, string> = {};
    for (const report of reports) {
      for (const [model, reason] of Object.entries(report.reasons ?? {})) reasons[model] ??= reason;
    }
    const bucketCount = this.latencyBoundsSeconds.length + 1;
    const traffic: TrafficCounters = {};
    addTraffic(traffic, this.retired, bucketCount);
    for (const report of reports) {
      if (report.traffic && this.sameBounds(report.traffic)) {
        addTraffic(traffic, report.traffic.endpoints, bucketCount);
      }
    }
    return {
      role: 'gateway',
      ...this.identity,
      revision:
        revisions.length === 0 || revisions.includes(null)
          ? null
          : Math.min(...revisions.filter((revision): revision is number => revision !== null)),
      models: {},
      reasons,
      endpoints: mergeEndpoints(reports),
      traffic: {
        epoch: this.epoch,
        latencyBoundsSeconds: [...this.latencyBoundsSeconds],
        endpoints: traffic,
      },
    };
  }

  private sameBounds(traffic: TrafficReport): boolean {
    const bounds = traffic.latencyBoundsSeconds;
    return (
      bounds.length === this.latencyBoundsSeconds.length &&
      bounds.every((bound, i) => bound === this.latencyBoundsSeconds[i])
    );
  }
}
