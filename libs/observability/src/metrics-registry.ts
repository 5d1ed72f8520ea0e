import { collectDefaultMetrics, Registry } from 'prom-client';

export { AggregatorRegistry, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** One registry's metrics as `getMetricsAsJSON()` gives them: what the event loops of a cluster send to be aggregated. */
export type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** Latency buckets in seconds, from 0.5 ms to 10 s: inference spans both ends. */
export const LATENCY_BUCKETS_SECONDS = [
  0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10,
];

/** A Prometheus registry with process metrics, labelled by app. */
export function createMetricsRegistry(app: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ app });
  collectDefaultMetrics({ register: registry });
  return registry;
}
