/** Latency percentiles and the Server-Timing breakdown of one concurrency step. */
export interface PerfStep {
  concurrency: number;
  requests: number;
  errors: number;
  /** Answered requests per second (errors excluded). */
  throughputPerSec: number;
  /** Latency percentiles in microseconds. */
  p50Us: number;
  p90Us: number;
  p95Us: number;
  p99Us: number;
  /** Mean duration per Server-Timing stage, in microseconds. */
  stagesUs: Record<string, number>;
  /** Status codes of failed requests with their counts. */
  errorStatuses: Record<string, number>;
}

/** The most concurrent loops one step runs (each holds a connection and a pending request). */
export const MAX_PERF_CONCURRENCY = 10_000;
/** The most levels one sweep runs. */
export const MAX_PERF_LEVELS = 1_000;

/** Parses perf_analyzer's `start:end:step` (linear; step defaults to 1): decimal integers only. */
export function parseConcurrencyRange(text: string): number[] {
  const parts = text.split(':').map((part) => (/^\d{1,9}$/.test(part) ? Number(part) : NaN));
  const [start, end = start, step = 1] = parts;
  const valid = (n: number | undefined): n is number => n !== undefined && Number.isInteger(n) && n > 0;
  if (parts.length > 3 || !valid(start) || !valid(end) || !valid(step) || end < start) {
    throw new Error(
      `--concurrency-range must be start[:end[:step]] in decimal with 0 < start <= end and step > 0, got '${text}'`,
    );
  }
  if (end > MAX_PERF_CONCURRENCY) {
    throw new Error(`--concurrency-range: concurrency ${end} is above the ${MAX_PERF_CONCURRENCY} perf runs`);
  }
  const levels: number[] = [];
  for (let c = start; c <= end; c += step) levels.push(c);
  if (levels.at(-1) !== end) levels.push(end);
  if (levels.length > MAX_PERF_LEVELS) {
    throw new Error(
      `--concurrency-range '${text}' makes ${levels.length} levels, more than the ${MAX_PERF_LEVELS} perf runs: use a larger step`,
    );
  }
  return levels;
}

/** The value at percentile `p` (nearest rank) of ascending `sorted`. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

/** Summarizes one step's raw samples. */
export function summarizeStep(input: {
  concurrency: number;
  elapsedMs: number;
  latenciesUs: number[];
  errorStatuses: Record<string, number>;
  stageSumsUs: Record<string, number>;
  stageCounts: Record<string, number>;
}): PerfStep {
  const sorted = [...input.latenciesUs].sort((a, b) => a - b);
  const errors = Object.values(input.errorStatuses).reduce((a, b) => a + b, 0);
  const stagesUs: Record<string, number> = {};
  for (const [stage, sum] of Object.entries(input.stageSumsUs)) {
    stagesUs[stage] = Math.round(sum / (input.stageCounts[stage] ?? 1));
  }
  return {
    concurrency: input.concurrency,
    requests: sorted.length + errors,
    errors,
    throughputPerSec: input.elapsedMs > 0 ? (sorted.length * 1000) / input.elapsedMs : 0,
    p50Us: Math.round(percentile(sorted, 50)),
    p90Us: Math.round(percentile(sorted, 90)),
    p95Us: Math.round(percentile(sorted, 95)),
    p99Us: Math.round(percentile(sorted, 99)),
    stagesUs,
    errorStatuses: input.errorStatuses,
  };
}

/** perf_analyzer-style lines for one step. */
export function formatStep(step: PerfStep): string {
  const stages = Object.entries(step.stagesUs)
    .map(([stage, us]) => `${stage} ${us} usec`)
    .join(', ');
  return [
    `Concurrency: ${step.concurrency}, throughput: ${step.throughputPerSec.toFixed(1)} infer/sec, latency p50 ${step.p50Us} usec, p90 ${step.p90Us} usec, p95 ${step.p95Us} usec, p99 ${step.p99Us} usec`,
    `  server stages (mean): ${stages || 'none reported'}; errors: ${step.errors}`,
  ].join('\n');
}
