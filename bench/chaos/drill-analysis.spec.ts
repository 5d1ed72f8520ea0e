import { describe, expect, it } from 'vitest';
import { longestGap, summarizeLoad } from './drill-analysis.js';
import { NO_READY_GATEWAY, OK, type RequestRecord } from './load-records.js';

const ok = (startMs: number, endMs: number, gateway = 0): RequestRecord => ({
  gateway,
  startMs,
  endMs,
  outcome: OK,
});
const failed = (endMs: number, outcome: string, gateway = 1): RequestRecord => ({
  gateway,
  startMs: endMs - 5,
  endMs,
  outcome,
});

describe('longestGap', () => {
  it('finds the longest interval between consecutive successes', () => {
    expect(longestGap([100, 150, 900, 950], 100, 1000)).toEqual({ ms: 750, fromMs: 150, toMs: 900 });
  });

  it('counts the time from the window start to the first success', () => {
    expect(longestGap([800, 850], 0, 900)).toEqual({ ms: 800, fromMs: 0, toMs: 800 });
  });

  it('counts the time from the last success to the window end', () => {
    expect(longestGap([10, 20], 0, 1000)).toEqual({ ms: 980, fromMs: 20, toMs: 1000 });
  });

  it('makes the whole window one stall when nothing succeeded in it', () => {
    expect(longestGap([5, 2000], 100, 1000)).toEqual({ ms: 900, fromMs: 100, toMs: 1000 });
  });

  it('takes successes in any order', () => {
    expect(longestGap([900, 100, 500], 100, 900).ms).toBe(400);
  });
});

describe('summarizeLoad', () => {
  const window = { steadyStartMs: 1000, faultAtMs: 5000, loadEndMs: 9000 };

  it('counts sent, answered and failed requests, warm-up included', () => {
    const records = [ok(0, 10), ok(1000, 1010), failed(6000, 'HTTP 503 UNAVAILABLE'), ok(8990, 9000)];
    const summary = summarizeLoad(records, window);
    expect(summary).toMatchObject({ sent: 4, ok: 3, failed: 1 });
  });

  it('groups failures by outcome, most frequent first, with gateways and times relative to the fault', () => {
    const records = [
      failed(5500, 'ECONNREFUSED', 1),
      failed(4000, 'HTTP 503 UNAVAILABLE', 0),
      failed(6500, 'HTTP 503 UNAVAILABLE', 1),
      failed(7000, 'HTTP 503 UNAVAILABLE', 1),
      failed(7250, NO_READY_GATEWAY, -1),
    ];
    expect(summarizeLoad(records, window).failures).toEqual([
      { outcome: 'HTTP 503 UNAVAILABLE', count: 3, gateways: [0, 1], firstS: -1, lastS: 2 },
      { outcome: 'ECONNREFUSED', count: 1, gateways: [1], firstS: 0.5, lastS: 0.5 },
      { outcome: NO_READY_GATEWAY, count: 1, gateways: [-1], firstS: 2.25, lastS: 2.25 },
    ]);
  });

  it('measures the longest stall over the steady window only, relative to the fault', () => {
    // The warm-up's quiet start (0 → 1000) is not a stall; 5200 → 8000 is.
    const records = [ok(900, 1000), ok(1000, 3000), ok(3000, 5200), ok(7000, 8000), ok(8500, 8990)];
    expect(summarizeLoad(records, window).longestStall).toEqual({ ms: 2800, fromS: 0.2, toS: 3 });
  });

  it('ignores failed completions when measuring stalls', () => {
    const records = [ok(900, 1000), failed(5000, 'ECONNRESET'), ok(8000, 9000)];
    expect(summarizeLoad(records, window).longestStall.ms).toBe(8000);
  });

  it('reports latency percentiles of the answered requests only', () => {
    const records = [ok(0, 10), ok(0, 20), ok(0, 30), failed(9000, 'ECONNRESET')];
    expect(summarizeLoad(records, window).latencyMs).toEqual({ p50: 20, p99: 30, max: 30 });
  });
});
