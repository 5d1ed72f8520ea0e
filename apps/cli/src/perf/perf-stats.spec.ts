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

  it('refuses non-decimal forms and sweeps too large to run', () => {
    for (const form of ['0x2', '1e3', '2.0', '-1', ' 2', '1::2']) {
      expect(() => parseConcurrencyRange(form)).toThrow('in decimal');
    }
    expect(() => parseConcurrencyRange('100000000')).toThrow('above the 10000 perf runs');
    expect(() => parseConcurrencyRange('1:10000')).toThrow('more than the 1000 perf runs');
    expect(() => parseConcurrencyRange('1:10000:10')).toThrow('makes 1001 levels');
    expect(parseConcurrencyRange('1:10000:100').length).toBe(101);
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
