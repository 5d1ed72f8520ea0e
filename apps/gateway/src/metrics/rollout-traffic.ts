/**
 * Per-(endpoint, model) traffic counters for rollouts: requests served and failed, a latency
 * histogram, mirrors and their agreement with the primary. Cumulative for the life of the process
 * and reported with each heartbeat; the registry takes the difference over a rollout's window, so
 * a candidate is judged on its own numbers (the Prometheus request duration histogram carries no
 * model, and the registry reads no Prometheus).
 */
import { randomBytes } from 'node:crypto';
import { type ModelTraffic, type TrafficReport, emptyModelTraffic } from '@modelgate/config-sync';
import { isModelgateError, toHttpStatus } from '@modelgate/contracts';
import { LATENCY_BUCKETS_SECONDS } from '@modelgate/observability';

/** Whether a failed serve counts against the model that served it: 5xx, never the client's 4xx. */
export function countsAsModelFailure(error: unknown): boolean {
  return isModelgateError(error) ? toHttpStatus(error.code) >= 500 : true;
}

export class RolloutTraffic {
  /** A new value per process: the registry sees counters that started again. */
  private readonly epoch = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  private readonly counters = new Map<string, Map<string, ModelTraffic>>();

  constructor(private readonly boundsSeconds: readonly number[] = LATENCY_BUCKETS_SECONDS) {}

  /** One request `model` served for `endpoint`, failed or not, in `seconds`. */
  recordServed(endpoint: string, model: string, failed: boolean, seconds: number): void {
    const entry = this.entry(endpoint, model);
    entry.served++;
    if (failed) entry.failed++;
    const bucket = this.boundsSeconds.findIndex((bound) => seconds <= bound);
    const index = bucket === -1 ? this.boundsSeconds.length : bucket;
    entry.latency[index] = (entry.latency[index] ?? 0) + 1;
  }

  /** One mirror's outcome; dropped mirrors were never sent, so they do not count. */
  recordMirror(endpoint: string, model: string, outcome: 'ok' | 'error' | 'dropped'): void {
    if (outcome === 'dropped') return;
    const entry = this.entry(endpoint, model);
    entry.mirrored++;
    if (outcome === 'error') entry.mirrorFailed++;
  }

  /** Mirrored classification rows compared with the primary's answer. */
  recordAgreement(endpoint: string, model: string, agreeing: number, disagreeing: number): void {
    const entry = this.entry(endpoint, model);
    entry.agreeing += agreeing;
    entry.disagreeing += disagreeing;
  }

  /** Mirrored rows that were not compared (sampled generations without a seed). */
  recordUncompared(endpoint: string, model: string, rows: number): void {
    this.entry(endpoint, model).uncompared += rows;
  }

  /** Everything counted so far, for the heartbeat (a copy). */
  report(): TrafficReport {
    const endpoints: TrafficReport['endpoints'] = {};
    for (const [endpoint, models] of this.counters) {
      const copy: Record<string, ModelTraffic> = {};
      for (const [model, entry] of models) copy[model] = { ...entry, latency: [...entry.latency] };
      endpoints[endpoint] = copy;
    }
    return { epoch: this.epoch, latencyBoundsSeconds: [...this.boundsSeconds], endpoints };
  }

  private entry(endpoint: string, model: string): ModelTraffic {
    let models = this.counters.get(endpoint);
    if (!models) this.counters.set(endpoint, (models = new Map<string, ModelTraffic>()));
    let entry = models.get(model);
    if (!entry) models.set(model, (entry = emptyModelTraffic(this.boundsSeconds.length + 1)));
    return entry;
  }
}
