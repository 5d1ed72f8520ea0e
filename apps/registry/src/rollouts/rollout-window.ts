// A rollout window's numbers from the gateways' heartbeats: each gateway reports counters that
// only grow (metrics/rollout-traffic.ts in the gateway); the window is the sum over gateways of
// what each counted since the window's start. Pure.
import { type ModelTraffic, type NodeHeartbeat, modelTrafficSchema } from '@modelgate/config-sync';
import { type RolloutWindow } from '@modelgate/routing';
import { z } from 'zod';

/** The candidate's counters on each gateway when a window began, by node id (stored in Postgres). */
export const trafficBaselineSchema = z.object({
  nodes: z.record(z.string(), z.object({ epoch: z.string(), traffic: modelTrafficSchema })),
});

/** The candidate's counters on each gateway when a window began. */
export type TrafficBaseline = z.infer<typeof trafficBaselineSchema>;

/** The counters `endpoint` → `model` on every gateway now: the start of a new window. */
export function takeBaseline(
  heartbeats: readonly NodeHeartbeat[],
  endpoint: string,
  model: string,
): TrafficBaseline {
  const nodes: TrafficBaseline['nodes'] = {};
  for (const beat of heartbeats) {
    const traffic = beat.role === 'gateway' ? beat.traffic : undefined;
    const counters = traffic?.endpoints[endpoint]?.[model];
    if (traffic && counters) nodes[beat.id] = { epoch: traffic.epoch, traffic: counters };
  }
  return { nodes };
}

/** A stored baseline, or an empty one (every gateway counts from zero) when it is not one. */
export function parseBaseline(stored: unknown): TrafficBaseline {
  if (stored === null || stored === undefined) return { nodes: {} };
  const parsed = trafficBaselineSchema.safeParse(stored);
  return parsed.success ? parsed.data : { nodes: {} };
}

/**
 * What the gateways counted for `endpoint` → `model` since `baseline`. A gateway counts from zero
 * when it was not in the baseline (started since, or had counted nothing), when its epoch changed
 * (it restarted) or when any counter went down: never a negative number. Latency buckets are
 * summed over gateways that use the first gateway's bounds. `comparesAnswers` is false for
 * endpoints whose answers the gateways do not compare row by row (measuresAgreement).
 */
export function windowSince(
  baseline: TrafficBaseline,
  heartbeats: readonly NodeHeartbeat[],
  endpoint: string,
  model: string,
  comparesAnswers: boolean,
): RolloutWindow {
  const total = {
    served: 0,
    failed: 0,
    mirrored: 0,
    mirrorFailed: 0,
    agreeing: 0,
    disagreeing: 0,
    uncompared: 0,
  };
  let bounds: readonly number[] | undefined;
  let buckets: number[] = [];
  for (const beat of heartbeats) {
    const traffic = beat.role === 'gateway' ? beat.traffic : undefined;
    const now = traffic?.endpoints[endpoint]?.[model];
    if (!traffic || !now) continue;
    const start = baseline.nodes[beat.id];
    const since =
      start && start.epoch === traffic.epoch && !wentDown(now, start.traffic) ? start.traffic : undefined;
    for (const key of Object.keys(total) as (keyof typeof total)[]) {
      total[key] += now[key] - (since?.[key] ?? 0);
    }
    if (bounds === undefined) {
      bounds = traffic.latencyBoundsSeconds;
      buckets = Array.from({ length: bounds.length + 1 }, () => 0);
    }
    if (!sameBounds(bounds, traffic.latencyBoundsSeconds) || now.latency.length !== buckets.length) continue;
    now.latency.forEach((count, i) => {
      buckets[i] = (buckets[i] ?? 0) + count - (since?.latency[i] ?? 0);
    });
  }
  let running = 0;
  return {
    requests: total.served,
    errors: total.failed,
    latency: {
      bounds: [...(bounds ?? []), Number.POSITIVE_INFINITY],
      cumulative: buckets.map((count) => (running += count)),
    },
    agreeing: total.agreeing,
    disagreeing: total.disagreeing,
    uncompared: total.uncompared,
    mirrored: total.mirrored,
    mirrorErrors: total.mirrorFailed,
    comparesAnswers,
  };
}

function wentDown(now: ModelTraffic, start: ModelTraffic): boolean {
  const scalarDown =
    now.served < start.served ||
    now.failed < start.failed ||
    now.mirrored < start.mirrored ||
    now.mirrorFailed < start.mirrorFailed ||
    now.agreeing < start.agreeing ||
    now.disagreeing < start.disagreeing ||
    now.uncompared < start.uncompared;
  return (
    scalarDown ||
    now.latency.length !== start.latency.length ||
    now.latency.some((count, i) => count < (start.latency[i] ?? 0))
  );
}

function sameBounds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((bound, i) => bound === b[i]);
}
