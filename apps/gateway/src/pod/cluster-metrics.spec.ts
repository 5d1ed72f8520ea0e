import { Counter, Gauge, Histogram, type MetricsJson, Registry } from '@modelgate/observability';
import { describe, expect, it } from 'vitest';
import { ClusterMetrics, monotonicPart } from './cluster-metrics.js';

/** One event loop's registry: a counter, a histogram, an in-flight gauge (sum) and a min gauge. */
function loopRegistry(requests: number, inFlight: number, ready: number) {
  const registry = new Registry();
  new Counter({ name: 'requests_total', help: 'h', labelNames: ['code'], registers: [registry] }).inc(
    { code: '200' },
    requests,
  );
  const latency = new Histogram({
    name: 'latency_seconds',
    help: 'h',
    buckets: [0.1, 1],
    registers: [registry],
  });
  for (let i = 0; i < requests; i++) latency.observe(0.05);
  new Gauge({ name: 'in_flight', help: 'h', registers: [registry] }).set(inFlight);
  new Gauge({ name: 'endpoint_ready', help: 'h', aggregator: 'min', registers: [registry] }).set(ready);
  return registry.getMetricsAsJSON();
}

/** The value of sample `name` (with `labels`) in Prometheus text, or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

const names = (metrics: MetricsJson) => metrics.map((metric) => metric.name);

describe('ClusterMetrics: one Prometheus view of every event loop', () => {
  it('sums counters and histograms and aggregates each gauge by its aggregator', async () => {
    const metrics = new ClusterMetrics();
    metrics.record(1, await loopRegistry(3, 2, 1));
    metrics.record(2, await loopRegistry(4, 5, 0));
    const text = await metrics.text(new Set([1, 2]));
    expect(sample(text, 'requests_total', '{code="200"}')).toBe(7);
    expect(sample(text, 'latency_seconds_bucket', '{le="0.1"}')).toBe(7);
    expect(sample(text, 'latency_seconds_count')).toBe(7);
    expect(sample(text, 'in_flight')).toBe(7);
    expect(sample(text, 'endpoint_ready')).toBe(0);
  });

  it('counts a loop that did not answer in time with its last counters and histograms, not its gauges', async () => {
    const metrics = new ClusterMetrics();
    metrics.record(1, await loopRegistry(3, 2, 1));
    metrics.record(2, await loopRegistry(4, 5, 1));
    metrics.record(1, await loopRegistry(6, 1, 1));
    const text = await metrics.text(new Set([1]));
    expect(sample(text, 'requests_total', '{code="200"}')).toBe(10);
    expect(sample(text, 'latency_seconds_count')).toBe(10);
    expect(sample(text, 'in_flight')).toBe(1);
  });

  it('keeps an exited loop’s counters, so a restarted loop is no counter reset for the pod', async () => {
    const metrics = new ClusterMetrics();
    metrics.record(1, await loopRegistry(3, 2, 1));
    metrics.record(2, await loopRegistry(4, 5, 1));
    metrics.retire(2);
    metrics.record(3, await loopRegistry(1, 1, 1)); // the replacement, from zero
    const text = await metrics.text(new Set([1, 3]));
    expect(sample(text, 'requests_total', '{code="200"}')).toBe(8);
    expect(sample(text, 'latency_seconds_count')).toBe(8);
    expect(sample(text, 'in_flight')).toBe(3);
    metrics.retire(3);
    metrics.retire(1);
    const after = await metrics.text(new Set());
    expect(sample(after, 'requests_total', '{code="200"}')).toBe(8);
    expect(sample(after, 'in_flight')).toBeUndefined();
  });

  it('keeps only the metrics that add up and only grow when a loop is gone', async () => {
    expect(names(monotonicPart(await loopRegistry(1, 1, 1)))).toEqual(['requests_total', 'latency_seconds']);
  });
});
