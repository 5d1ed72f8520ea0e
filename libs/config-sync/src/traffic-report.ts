import { z } from 'zod';

const count = z.number().int().min(0);

/**
 * What one gateway process has seen of one model behind one endpoint since it started: counters
 * that only grow (a restart starts them again under a new `epoch`). The registry subtracts a
 * rollout window's start from its end to judge the candidate on its own numbers.
 */
export const modelTrafficSchema = z.object({
  served: count.describe('Requests the model served (answered or failed), pinned calls included.'),
  failed: count.describe(
    "Of those, failed with a 5xx (the model's or its workers' fault, never the client's).",
  ),
  latency: z
    .array(count)
    .describe(
      'Served requests by latency bucket: `latency[i]` took at most `latencyBoundsSeconds[i]`, the last entry the rest.',
    ),
  mirrored: count.describe(
    'Requests mirrored to the model as a shadow (answered or failed; dropped ones are not sent).',
  ),
  mirrorFailed: count.describe('Of those, failed.'),
  agreeing: count.describe("Mirrored classification rows whose top-1 label agreed with the primary's."),
  disagreeing: count.describe("Mirrored classification rows whose top-1 label differed from the primary's."),
  uncompared: count
    .default(0)
    .describe(
      'Mirrored rows not compared with the primary (generations sampled without a seed): they move no agreement. 0 in reports from before it was counted.',
    ),
});

/** One model's counters on one gateway. */
export type ModelTraffic = z.infer<typeof modelTrafficSchema>;

/** A gateway's traffic counters, carried by its heartbeat. */
export const trafficReportSchema = z.object({
  epoch: z
    .string()
    .min(1)
    .describe("Names this process's counters: a new value means they started again from zero."),
  latencyBoundsSeconds: z
    .array(z.number().positive())
    .describe('Upper bounds of the latency buckets, in seconds, ascending (the last bucket has none).'),
  endpoints: z
    .record(z.string(), z.record(z.string(), modelTrafficSchema))
    .describe('Endpoint name → model id (`name:version`) → counters.'),
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
    uncompared: 0,
  };
}
