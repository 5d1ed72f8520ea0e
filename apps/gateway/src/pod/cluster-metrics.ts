/**
 * The Prometheus view of a gateway pod of several event loops: what each loop's registry holds,
 * aggregated with prom-client's AggregatorRegistry by each metric's `aggregator` (counters and
 * histograms summed, so a scrape sees the pod's totals whichever loop answers it; gauges as
 * each declares: `sum` by default, `min` for modelgate_endpoint_ready, `first`/`omit` for
 * prom-client's process metrics). The text of one scrape is made of, in order:
 *
 *  1. every live loop that answered this collection: all its metrics;
 *  2. a live loop that did not answer in time: the counters and histograms of its last answer
 *     (they only grow, so the totals do not go back; its gauges are left out rather than stale);
 *  3. loops that exited: the counters and histograms of their last answers, kept for the life of
 *     the primary, so a crashed and restarted loop is not a counter reset of the whole pod.
 */
import { AggregatorRegistry, type MetricsJson } from '@modelgate/observability';

/** Metrics that only grow and add up across loops: counters and histograms aggregated by sum. */
export function monotonicPart(metrics: MetricsJson): MetricsJson {
  return metrics.filter((metric) => {
    const type = String(metric.type);
    return (type === 'counter' || type === 'histogram') && (metric.aggregator ?? 'sum') === 'sum';
  });
}

/** The metrics of `sets` aggregated into one registry's JSON. */
async function aggregateJson(sets: readonly MetricsJson[]): Promise<MetricsJson> {
  return AggregatorRegistry.aggregate([...sets]).getMetricsAsJSON();
}

/** Each live loop's last metrics and the monotonic remains of exited loops (rules in the top comment). */
export class ClusterMetrics {
  private readonly last = new Map<number, MetricsJson>();
  private retired: MetricsJson = [];
  /** Retirements run one after another; a scrape waits for those under way. */
  private retiring: Promise<void> = Promise.resolve();

  /** Loop `loop` answered a collection with `metrics`. */
  record(loop: number, metrics: MetricsJson): void {
    this.last.set(loop, metrics);
  }

  /** Loop `loop` exited: its last counters and histograms join the retired totals. */
  retire(loop: number): void {
    const last = this.last.get(loop);
    this.last.delete(loop);
    if (!last) return;
    const kept = monotonicPart(last);
    this.retiring = this.retiring.then(async () => {
      this.retired = await aggregateJson([this.retired, kept]);
    });
  }

  /** The pod's Prometheus text, `fresh` naming the loops that answered this collection. */
  async text(fresh: ReadonlySet<number>): Promise<string> {
    await this.retiring;
    const sets: MetricsJson[] = [this.retired];
    for (const [loop, metrics] of this.last) sets.push(fresh.has(loop) ? metrics : monotonicPart(metrics));
    return AggregatorRegistry.aggregate(sets).metrics();
  }
}
