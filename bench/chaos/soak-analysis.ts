/**
 * Whether a process's memory and file descriptors stayed flat through the soak: the least-squares
 * slope of each series after the warm-up, per hour, against a limit. A leak of a kilobyte per
 * request at this load (~100 requests/s) grows RSS by ~350 MiB an hour; the limits sit an order
 * of magnitude below that and above what garbage collection's saw-tooth leaves in a 25-minute fit.
 */

/** One reading of one process. */
export interface ProcessSample {
  /** Epoch ms. */
  atMs: number;
  /** VmRSS from /proc/<pid>/status. */
  rssBytes: number;
  /** Entries of /proc/<pid>/fd. */
  fds: number;
  /** nodejs_heap_size_used_bytes from its /metrics; undefined when it did not answer. */
  heapUsedBytes?: number;
  /** nodejs_external_memory_bytes (ArrayBuffers, onnxruntime's tensors handed to JS). */
  externalBytes?: number;
}

/** Growth limits per hour after the warm-up. */
export const SOAK_LIMITS = { rssMiBPerHour: 20, heapMiBPerHour: 10, fdsPerHour: 10 } as const;

const MiB = 1024 * 1024;
const HOUR_MS = 3_600_000;

/** Least-squares slope of `values` over `timesMs`, per hour; NaN with fewer than two points. */
export function slopePerHour(timesMs: readonly number[], values: readonly number[]): number {
  const n = Math.min(timesMs.length, values.length);
  if (n < 2) return NaN;
  let meanT = 0;
  let meanV = 0;
  for (let i = 0; i < n; i++) {
    meanT += timesMs[i]!;
    meanV += values[i]!;
  }
  meanT /= n;
  meanV /= n;
  let covariance = 0;
  let variance = 0;
  for (let i = 0; i < n; i++) {
    const dt = timesMs[i]! - meanT;
    covariance += dt * (values[i]! - meanV);
    variance += dt * dt;
  }
  return variance === 0 ? NaN : (covariance / variance) * HOUR_MS;
}

/** One series after the warm-up: where it started and ended, its range and its slope. */
export interface SeriesSummary {
  first: number;
  last: number;
  min: number;
  max: number;
  /** Units per hour. */
  slopePerHour: number;
}

function summarize(timesMs: number[], values: number[], scale: number): SeriesSummary | undefined {
  if (values.length === 0) return undefined;
  const scaled = values.map((value) => value / scale);
  return {
    first: scaled[0]!,
    last: scaled.at(-1)!,
    min: Math.min(...scaled),
    max: Math.max(...scaled),
    slopePerHour: slopePerHour(timesMs, scaled),
  };
}

/** A process's verdict. */
export interface ProcessVerdict {
  name: string;
  /** Samples after the warm-up (of all taken). */
  samples: number;
  /** MiB. */
  rss?: SeriesSummary;
  /** MiB. */
  heapUsed?: SeriesSummary;
  /** MiB. */
  external?: SeriesSummary;
  fds?: SeriesSummary;
  /** What was over its limit, or why it could not be judged; empty when flat. */
  problems: string[];
}

/**
 * Judges one process from its samples taken after `warmupEndMs`. `restarted`: its pid changed
 * during the soak (nothing is restarted on purpose, so that is a problem of its own).
 */
export function judgeProcess(
  name: string,
  samples: readonly ProcessSample[],
  warmupEndMs: number,
  restarted = false,
): ProcessVerdict {
  const kept = samples.filter((sample) => sample.atMs >= warmupEndMs);
  const problems: string[] = [];
  if (restarted) problems.push('restarted during the soak');
  if (kept.length < 3) problems.push(`only ${kept.length} samples after the warm-up`);
  const times = kept.map((sample) => sample.atMs);
  const withHeap = kept.filter((sample) => sample.heapUsedBytes !== undefined);
  const verdict: ProcessVerdict = {
    name,
    samples: kept.length,
    rss: summarize(
      times,
      kept.map((sample) => sample.rssBytes),
      MiB,
    ),
    heapUsed: summarize(
      withHeap.map((sample) => sample.atMs),
      withHeap.map((sample) => sample.heapUsedBytes!),
      MiB,
    ),
    external: summarize(
      withHeap.map((sample) => sample.atMs),
      withHeap.map((sample) => sample.externalBytes ?? 0),
      MiB,
    ),
    fds: summarize(
      times,
      kept.map((sample) => sample.fds),
      1,
    ),
    problems,
  };
  const over = (label: string, series: SeriesSummary | undefined, limit: number, unit: string) => {
    if (series && series.slopePerHour > limit) {
      problems.push(`${label} grew ${series.slopePerHour.toFixed(1)} ${unit}/h (limit ${limit})`);
    }
  };
  if (kept.length >= 3) {
    over('RSS', verdict.rss, SOAK_LIMITS.rssMiBPerHour, 'MiB');
    over('heap', verdict.heapUsed, SOAK_LIMITS.heapMiBPerHour, 'MiB');
    over('file descriptors', verdict.fds, SOAK_LIMITS.fdsPerHour, 'fds');
    if (withHeap.length < kept.length / 2) problems.push('its /metrics answered fewer than half the samples');
  }
  return verdict;
}
