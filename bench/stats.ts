/** Latency percentiles of one load step, in milliseconds. */
export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
}

/** The value below which `fraction` of the sorted samples lie (nearest rank). */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[rank] ?? NaN;
}

/** p50/p90/p99/mean/max of latency samples in ms (the input is not modified). */
export function summarizeLatencies(samplesMs: readonly number[]): LatencySummary {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    mean: sorted.length > 0 ? sum / sorted.length : NaN,
    max: sorted.at(-1) ?? NaN,
  };
}

/** Running sums of named stage durations (Server-Timing, worker parameters), averaged on demand. */
export class StageAverager {
  private readonly sums = new Map<string, number>();
  private count = 0;

  /** Adds one request's stages. */
  add(stages: ReadonlyMap<string, number>): void {
    this.count++;
    for (const [name, value] of stages) this.sums.set(name, (this.sums.get(name) ?? 0) + value);
  }

  /** Mean of each stage over the requests added, plus how many there were. */
  averages(): { samples: number; meanMs: Record<string, number> } {
    const meanMs: Record<string, number> = {};
    for (const [name, sum] of this.sums) meanMs[name] = this.count > 0 ? sum / this.count : NaN;
    return { samples: this.count, meanMs };
  }
}

/** One figure over the repeats of a run: its median and range, plus every sample in run order. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  samples: number[];
}

/** Median (the mean of the middle two for an even count), min and max of `samples`; NaN ones are dropped. */
export function spreadOf(samples: readonly number[]): Spread {
  const kept = samples.filter((value) => Number.isFinite(value));
  const sorted = [...kept].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median =
    sorted.length === 0
      ? NaN
      : sorted.length % 2 === 1
        ? (sorted[middle] ?? NaN)
        : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
  return { median, min: sorted[0] ?? NaN, max: sorted.at(-1) ?? NaN, samples: kept };
}
