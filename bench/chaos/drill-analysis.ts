/**
 * What one drill's load saw, from its request records (pure, no I/O): requests sent, answered 200
 * and failed (grouped by outcome, with when each kind first and last happened relative to the
 * fault), latency of the answered ones, and the longest stall — the longest interval of the
 * measured window in which no request completed successfully.
 */
import { percentile } from '../stats.js';
import { OK, type RequestRecord } from './load-records.js';

/** The phase marks a drill's analysis needs, in epoch ms. */
export interface DrillWindow {
  /** Steady load begins (after the warm-up): the stall window opens. */
  steadyStartMs: number;
  /** The fault was injected: failure and stall times are reported relative to it. */
  faultAtMs: number;
  /** The load was told to stop: the stall window closes. */
  loadEndMs: number;
}

/** One kind of failure. */
export interface FailureGroup {
  outcome: string;
  count: number;
  /** Gateways (indexes) the failed requests were sent to; -1 when none was ready. */
  gateways: number[];
  /** Seconds after the fault the first and last of them ended (negative: before it). */
  firstS: number;
  lastS: number;
}

/** The longest interval without a successful completion. */
export interface Stall {
  ms: number;
  /** Seconds after the fault it began and ended. */
  fromS: number;
  toS: number;
}

/** What the load saw during one drill. */
export interface LoadSummary {
  sent: number;
  ok: number;
  failed: number;
  failures: FailureGroup[];
  longestStall: Stall;
  /** Latency of the requests answered 200, in ms. */
  latencyMs: { p50: number; p99: number; max: number };
}

/**
 * The longest gap between consecutive success times within [fromMs, toMs], the window's edges
 * counting as boundaries (a window with no success at all is one stall of its whole length).
 */
export function longestGap(successEndsMs: readonly number[], fromMs: number, toMs: number) {
  const inside = successEndsMs.filter((at) => at >= fromMs && at <= toMs).sort((a, b) => a - b);
  const points = [fromMs, ...inside, toMs];
  let best = { ms: 0, fromMs, toMs: fromMs };
  for (let i = 1; i < points.length; i++) {
    const gap = points[i]! - points[i - 1]!;
    if (gap > best.ms) best = { ms: gap, fromMs: points[i - 1]!, toMs: points[i]! };
  }
  return best;
}

/** Summarizes every request the load sent during the drill (its warm-up included). */
export function summarizeLoad(records: readonly RequestRecord[], window: DrillWindow): LoadSummary {
  const sinceFault = (ms: number) => Math.round(ms - window.faultAtMs) / 1000;
  const okRecords = records.filter((record) => record.outcome === OK);
  const groups = new Map<string, { count: number; gateways: Set<number>; first: number; last: number }>();
  for (const record of records) {
    if (record.outcome === OK) continue;
    const group = groups.get(record.outcome) ?? {
      count: 0,
      gateways: new Set<number>(),
      first: Infinity,
      last: -Infinity,
    };
    group.count++;
    group.gateways.add(record.gateway);
    group.first = Math.min(group.first, record.endMs);
    group.last = Math.max(group.last, record.endMs);
    groups.set(record.outcome, group);
  }
  const failures = [...groups.entries()]
    .map(([outcome, group]) => ({
      outcome,
      count: group.count,
      gateways: [...group.gateways].sort((a, b) => a - b),
      firstS: sinceFault(group.first),
      lastS: sinceFault(group.last),
    }))
    .sort((a, b) => b.count - a.count);
  const gap = longestGap(
    okRecords.map((record) => record.endMs),
    window.steadyStartMs,
    window.loadEndMs,
  );
  const latencies = okRecords.map((record) => record.endMs - record.startMs).sort((a, b) => a - b);
  return {
    sent: records.length,
    ok: okRecords.length,
    failed: records.length - okRecords.length,
    failures,
    longestStall: { ms: Math.round(gap.ms), fromS: sinceFault(gap.fromMs), toS: sinceFault(gap.toMs) },
    latencyMs: {
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      max: latencies.at(-1) ?? NaN,
    },
  };
}
