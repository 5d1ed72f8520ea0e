import { z } from 'zod';

const count = z.number().int().min(0);

/**
 * What one gateway process has seen of one model behind one endpoint since it started: counters
 * that only grow (a restart starts them again under a new `epoch`). The registry subtracts a
 * rollout window's start from its end to judge the candidate on its own numbers.
 */
export const modelTrafficSchema = z.object({
  /** Requests the model served (answered or failed), pinned calls included. */
  served: count,
  /** Of those, failed with a 5xx (the model's or its workers' fault, never the client's). */
  failed: count,
  /** Served requests by latency bucket: `latency[i]` took at most `latencyBoundsSeconds[i]`, the last entry the rest. */
  latency: z.array(count),
  /** Requests mirrored to the model as a shadow (answered or failed; dropped ones are not sent). */
  mirrored: count,
  /** Of those, failed. */
  mirrorFailed: count,
  /** Mirrored classification rows whose top-1 label agreed / disagreed with the primary's. */
  agreeing: count,
  disagreeing: count,
});

/** One model's counters on one gateway. */
export type ModelTraffic = z.infer<typeof modelTrafficSchema>;

/** A gateway's traffic counters, carried by its heartbeat. */
export const trafficReportSchema = z.object({
  /** Names this process's counters: a new value means they started again from zero. */
  epoch: z.string().min(1),
  /** Upper bounds of the latency buckets, in seconds, ascending (the last bucket has none). */
  latencyBoundsSeconds: z.array(z.number().positive()),
  /** Endpoint name → model id (`name:version`) → counters. */
  endpoints: z.record(z.string(), z.record(z.string(), modelTrafficSchema)),
});

/** A gateway's traffic counters. */
export type TrafficReport = z.infer<typeof trafficReportSchema>;

/** Counters that saw nothing, for `bucketCount` latency buckets. */
export function emptyModelTraffic(bucketCount: number): ModelTraffic {
  return {
    served: 0,
    failed: 0,
    latency: Array.from({ length: bucketCount }, () => 0),
    mirrored: 0,
    mirrorFailed: 0,
    agreeing: 0,
    disagreeing: 0,
  };
}
