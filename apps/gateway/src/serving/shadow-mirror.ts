/**
 * Shadow mirroring: a shadow route's model gets a copy of the requests its weight selects, after
 * the primary's answer is on its way. A mirror never delays, fails or changes the client's answer;
 * at most `maxInFlight` run at once per gateway process (past that a mirror is dropped and
 * counted). Each mirrored answer is compared with the primary's on the same input, and the
 * outcome, latency and agreement go to the metrics.
 */
import { type ModelTask } from '@modelgate/contracts';
import { type ClassScore, compareClassifications, compareEmbeddings } from '@modelgate/processing';
import { type GatewayMetrics } from '../metrics/gateway-metrics.js';

/** Mirrors in flight per gateway process, by default. */
export const MAX_SHADOWS_IN_FLIGHT = 64;

/** One request to mirror. */
export interface MirrorJob {
  endpoint: string;
  /** The shadow model's id (name:version). */
  model: string;
  /** The primary's task; answers are compared only when the shadow's is the same. */
  task: ModelTask;
  shadowTask: ModelTask;
  /** The primary's predictions for the same input. */
  primary: readonly unknown[];
  /** Runs the request on the shadow model; resolves with its predictions. */
  predict: () => Promise<readonly unknown[]>;
  /**
   * false: the two answers are not compared (a generation sampled without a seed differs from run
   * to run by design), only counted as `uncompared`, so it never moves a rollout's agreement.
   * @defaultValue true
   */
  comparable?: boolean;
}

export class ShadowMirror {
  private inFlight = 0;

  constructor(
    private readonly metrics: GatewayMetrics,
    private readonly maxInFlight = MAX_SHADOWS_IN_FLIGHT,
  ) {}

  /** Mirrors in flight now. */
  get running(): number {
    return this.inFlight;
  }

  /** Starts `job` after the current answer is sent (or drops it when full); never throws. */
  mirror(job: MirrorJob): void {
    if (this.inFlight >= this.maxInFlight) {
      this.metrics.recordShadow(job.endpoint, job.model, 'dropped');
      return;
    }
    this.inFlight++;
    setImmediate(() => {
      void this.run(job)
        .catch(() => undefined) // run() catches everything; a mirror must never end the process
        .finally(() => this.inFlight--);
    });
  }

  private async run(job: MirrorJob): Promise<void> {
    const started = performance.now();
    let predictions: readonly unknown[];
    try {
      predictions = await job.predict();
    } catch {
      this.metrics.recordShadow(job.endpoint, job.model, 'error', started);
      return;
    }
    this.metrics.recordShadow(job.endpoint, job.model, 'ok', started);
    try {
      this.compare(job, predictions);
    } catch {
      // An answer of another shape than the primary's (a shadow of another task): nothing to compare.
    }
  }

  private compare(job: MirrorJob, predictions: readonly unknown[]): void {
    if (job.shadowTask !== job.task) return;
    if (job.comparable === false) {
      this.metrics.recordUncompared(
        job.endpoint,
        job.model,
        Math.min(job.primary.length, predictions.length),
      );
      return;
    }
    if (job.task === 'text-classification' || job.task === 'image-classification') {
      const agreement = compareClassifications(job.primary as ClassScore[][], predictions as ClassScore[][]);
      this.metrics.recordClassificationAgreement(job.endpoint, job.model, agreement);
    } else if (job.task === 'feature-extraction') {
      const rows = (answer: readonly unknown[]) =>
        answer.map((row) => (row as { embedding: number[] }).embedding);
      const similarities = compareEmbeddings(rows(job.primary), rows(predictions));
      this.metrics.recordEmbeddingSimilarity(job.endpoint, job.model, similarities);
    } else if (job.task === 'text-generation' || job.task === 'image-to-text') {
      // Agreement is the identical generated text: the same tokens, which greedy decoding (or the
      // same seed) makes a fair test; sampled requests without a seed come as not comparable.
      const text = (row: unknown) => (row as { generated_text: string }).generated_text;
      const rows = Math.min(job.primary.length, predictions.length);
      const agreeing = job.primary.filter((row, i) => i < rows && text(row) === text(predictions[i])).length;
      this.metrics.recordClassificationAgreement(job.endpoint, job.model, {
        rows,
        agreeing,
        scoreDeltas: [],
      });
    }
  }
}
