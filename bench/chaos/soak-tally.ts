/**
 * The soak load's record, kept bounded: a 30-minute run sends hundreds of thousands of requests,
 * so instead of one record per request (as a drill keeps) it counts outcomes per kind and per
 * minute and keeps latencies in a log-bucketed histogram (each bucket 5 % wider than the last).
 */

import { OK } from './load-records.js';

/** The lowest bucket's upper bound, ms. */
const FIRST_BOUND_MS = 0.5;
const GROWTH = 1.05;
/** Buckets up to ~4 minutes; slower answers fall in the last. */
const BUCKETS = 270;

/** Upper bound of latency bucket `index`, ms. */
export function bucketBoundMs(index: number): number {
  return FIRST_BOUND_MS * GROWTH ** index;
}

function bucketOf(latencyMs: number): number {
  if (latencyMs <= FIRST_BOUND_MS) return 0;
  return Math.min(BUCKETS - 1, Math.ceil(Math.log(latencyMs / FIRST_BOUND_MS) / Math.log(GROWTH)));
}

/** One kind's counts. */
export interface KindTally {
  sent: number;
  ok: number;
  /** Failed requests by outcome (`HTTP 503 UNAVAILABLE`, `ECONNRESET`, …). */
  failed: Record<string, number>;
  /** The first message per failed outcome. */
  messages: Record<string, string>;
  /** Answered-OK latencies: count per bucket (see bucketBoundMs). */
  latencyBuckets: number[];
  /** Per minute since the load started: [ok, failed]. */
  perMinute: [number, number][];
}

/** Counts requests of several kinds against one start time. */
export class SoakTally {
  readonly #startMs: number;
  readonly #kinds = new Map<string, KindTally>();

  constructor(kinds: readonly string[], startMs: number) {
    this.#startMs = startMs;
    for (const kind of kinds) {
      this.#kinds.set(kind, {
        sent: 0,
        ok: 0,
        failed: {},
        messages: {},
        latencyBuckets: new Array<number>(BUCKETS).fill(0),
        perMinute: [],
      });
    }
  }

  /** Records one request of `kind`, started and ended at epoch ms, with its outcome. */
  record(kind: string, startMs: number, endMs: number, outcome: string, message?: string): void {
    const tally = this.#kinds.get(kind);
    if (tally === undefined) throw new Error(`unknown kind ${kind}`);
    tally.sent++;
    const minute = Math.max(0, Math.floor((endMs - this.#startMs) / 60_000));
    while (tally.perMinute.length <= minute) tally.perMinute.push([0, 0]);
    const counts = tally.perMinute[minute]!;
    if (outcome === OK) {
      tally.ok++;
      counts[0]++;
      tally.latencyBuckets[bucketOf(endMs - startMs)]!++;
      return;
    }
    counts[1]++;
    tally.failed[outcome] = (tally.failed[outcome] ?? 0) + 1;
    if (message !== undefined && tally.messages[outcome] === undefined) tally.messages[outcome] = message;
  }

  /** Everything counted, by kind. */
  result(): Record<string, KindTally> {
    return Object.fromEntries(this.#kinds);
  }
}

/** The latency at `fraction` (0–1) of a kind's OK answers, as its bucket's upper bound; NaN with none. */
export function latencyPercentileMs(tally: Pick<KindTally, 'latencyBuckets'>, fraction: number): number {
  const total = tally.latencyBuckets.reduce((sum, count) => sum + count, 0);
  if (total === 0) return NaN;
  const rank = Math.max(1, Math.ceil(fraction * total));
  let seen = 0;
  for (let i = 0; i < tally.latencyBuckets.length; i++) {
    seen += tally.latencyBuckets[i]!;
    if (seen >= rank) return bucketBoundMs(i);
  }
  return bucketBoundMs(tally.latencyBuckets.length - 1);
}
