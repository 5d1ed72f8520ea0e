import { describe, expect, it } from 'vitest';
import { formatStep, parseConcurrencyRange, percentile, summarizeStep } from './perf-stats.js';

describe('perf arguments', () => {
  it('reads perf_analyzer concurrency ranges, linear, always ending on end', () => {
    expect(parseConcurrencyRange('1:64:2').slice(0, 3)).toEqual([1, 3, 5]);
    expect(parseConcurrencyRange('1:64:2').at(-1)).toBe(64);
    expect(parseConcurrencyRange('8')).toEqual([8]);
    expect(parseConcurrencyRange('1:4')).toEqual([1, 2, 3, 4]);
    expect(() => parseConcurrencyRange('4:1')).toThrow('--concurrency-range');
    expect(() => parseConcurrencyRange('0:4')).toThrow('--concurrency-range');
  });
});

describe('summarizeStep', () => {
  it('computes throughput, percentiles and mean stages, and prints perf_analyzer lines', () => {
    const step = summarizeStep({
      concurrency: 8,
      elapsedMs: 2000,
      latenciesUs: Array.from({ length: 100 }, (_, i) => (i + 1) * 10),
      errorStatuses: { '429': 2 },
      stageSumsUs: { tokenize: 500, infer: 9000 },
      stageCounts: { tokenize: 100, infer: 100 },
    });
    expect(step).toMatchObject({ requests: 102, errors: 2, throughputPerSec: 50, p50Us: 500, p99Us: 990 });
    expect(step.stagesUs).toEqual({ tokenize: 5, infer: 90 });
    expect(formatStep(step)).toContain('Concurrency: 8, throughput: 50.0 infer/sec, latency p50 500 usec');
    expect(percentile([], 50)).toBe(0);
  });
});
