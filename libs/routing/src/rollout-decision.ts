// When a progressive rollout's window ends: promote the candidate to the next step, hold the
// step (too little traffic to judge), or roll back — from the candidate's own numbers over the
// window and the rollout's thresholds. Pure: no clock, no I/O; the registry's rollout state
// machine calls it at the end of each window.

/** The limits a rollout was started with (`modelgate rollout start … --max-error-rate …`). */
export interface RolloutThresholds {
  /** Largest share of failed candidate requests, 0–1. */
  readonly maxErrorRate: number;
  /** Largest p99 latency of the candidate, in ms. */
  readonly maxP99Ms: number;
  /** Smallest share of mirrored rows whose top-1 label agrees with the primary, 0–1. */
  readonly minAgreement: number;
  /** Fewest candidate requests (or mirrored rows, in the shadow phase) a window needs to be judged. */
  readonly minRequests: number;
}

/** A latency histogram as Prometheus keeps it: cumulative counts at upper bounds, in seconds. */
export interface LatencyBuckets {
  /** Upper bounds in seconds, ascending; the last may be +Infinity. */
  readonly bounds: readonly number[];
  /** Cumulative request counts at each bound. */
  readonly cumulative: readonly number[];
}

/** What the gateways saw of the candidate over one window. */
export interface RolloutWindow {
  /** Live requests the candidate answered or failed (0 in the shadow phase). */
  readonly requests: number;
  readonly errors: number;
  readonly latency: LatencyBuckets;
  /** Mirrored rows whose answer agreed / disagreed with the primary's (shadow comparison, AGREEMENT_TASKS). */
  readonly agreeing: number;
  readonly disagreeing: number;
  /** Mirrored rows not compared (generations sampled without a seed): they judge nothing. @defaultValue 0 */
  readonly uncompared?: number;
  /** Requests mirrored to the candidate (answered or failed); 0 when it is not a shadow. @defaultValue 0 */
  readonly mirrored?: number;
  /** Mirrored requests the candidate failed. @defaultValue 0 */
  readonly mirrorErrors?: number;
  /**
   * Whether the gateways compare the candidate's answers with the primary's row by row (the
   * endpoint's task is one of AGREEMENT_TASKS: a top class or a generated text). Then the shadow
   * phase counts compared rows, and a window with none holds; when false it counts answered
   * mirrors. @defaultValue true
   */
  readonly comparesAnswers?: boolean;
}

export type RolloutVerdict =
  | { readonly decision: 'promote'; readonly reason: string }
  | { readonly decision: 'hold'; readonly reason: string }
  | { readonly decision: 'rollback'; readonly reason: string };

/**
 * The quantile `q` (0–1) of a cumulative histogram, in ms: linear within the bucket it falls in,
 * as Prometheus' histogram_quantile does; the last finite bound when it falls in +Inf; undefined
 * for an empty histogram.
 */
export function quantileMs(latency: LatencyBuckets, q: number): number | undefined {
  const total = latency.cumulative.at(-1) ?? 0;
  if (total <= 0) return undefined;
  const rank = q * total;
  for (let i = 0; i < latency.bounds.length; i++) {
    const count = latency.cumulative[i] ?? 0;
    if (count < rank) continue;
    const upper = latency.bounds[i]!;
    const lower = i === 0 ? 0 : latency.bounds[i - 1]!;
    if (!Number.isFinite(upper)) return lower * 1000;
    const below = i === 0 ? 0 : (latency.cumulative[i - 1] ?? 0);
    const inBucket = count - below;
    const fraction = inBucket > 0 ? (rank - below) / inBucket : 1;
    return (lower + (upper - lower) * fraction) * 1000;
  }
  return (latency.bounds.at(-1) ?? 0) * 1000;
}

/**
 * The verdict on a window. `phase` 'shadow' judges what was mirrored (the candidate takes no live
 * traffic yet): 1. mirror error rate, 2. agreement, 3. volume (compared rows, or answered mirrors
 * where answers have no label). 'live' judges 1. error rate, 2. p99, 3. agreement where mirrored
 * rows exist, 4. volume.
 *
 * `minRequests` bounds every check, not only promotion: a window with fewer than that many is
 * judged as if the missing ones had all succeeded, fast and in agreement (each rate over
 * `minRequests`, the p99 over the histogram padded with that many instant requests). So a breach
 * that no further traffic could undo (5 failures where 100 requests may fail 1) rolls back at once,
 * and one that the next requests could still outweigh (1 failure in the first 3) holds the step.
 */
export function decideRolloutStep(
  window: RolloutWindow,
  thresholds: RolloutThresholds,
  phase: 'shadow' | 'live',
): RolloutVerdict {
  const compared = window.agreeing + window.disagreeing;
  const agreement = compared > 0 ? window.agreeing / compared : undefined;
  const agreementLow =
    agreement !== undefined &&
    (window.agreeing + padding(compared, thresholds)) / judgedOver(compared, thresholds) <
      thresholds.minAgreement;
  const agreementText = () =>
    `agreement ${percent(agreement!)} below ${percent(thresholds.minAgreement)} over ${compared} mirrored rows` +
    belowVolume(compared, thresholds, 'mirrored rows');

  if (phase === 'shadow') {
    const mirrored = window.mirrored ?? 0;
    const mirrorErrors = window.mirrorErrors ?? 0;
    if (mirrored > 0 && mirrorErrors / judgedOver(mirrored, thresholds) > thresholds.maxErrorRate) {
      return {
        decision: 'rollback',
        reason:
          `mirror error rate ${percent(mirrorErrors / mirrored)} (${mirrorErrors} of ${mirrored}) above ${percent(thresholds.maxErrorRate)}` +
          belowVolume(mirrored, thresholds, 'mirrors'),
      };
    }
    if (agreementLow) return { decision: 'rollback', reason: agreementText() };
    if (window.comparesAnswers === false) {
      const answered = mirrored - mirrorErrors;
      if (answered < thresholds.minRequests) {
        return {
          decision: 'hold',
          reason: `${answered} answered mirrors, fewer than the ${thresholds.minRequests} needed`,
        };
      }
      return { decision: 'promote', reason: `${answered} answered mirrors without errors above the limit` };
    }
    if (compared < thresholds.minRequests) {
      const uncompared = window.uncompared ?? 0;
      return {
        decision: 'hold',
        reason:
          `${compared} mirrored rows, fewer than the ${thresholds.minRequests} needed` +
          (uncompared > 0
            ? ` (${uncompared} sampled without a seed were not compared: greedy or seeded requests judge the candidate)`
            : ''),
      };
    }
    return {
      decision: 'promote',
      reason: `agreement ${percent(agreement ?? 1)} over ${compared} mirrored rows`,
    };
  }

  if (window.requests > 0) {
    const errorRate = window.errors / window.requests;
    if (window.errors / judgedOver(window.requests, thresholds) > thresholds.maxErrorRate) {
      return {
        decision: 'rollback',
        reason:
          `error rate ${percent(errorRate)} (${window.errors} of ${window.requests}) above ${percent(thresholds.maxErrorRate)}` +
          belowVolume(window.requests, thresholds, 'requests'),
      };
    }
    const judgedP99 = quantileMs(padFast(window.latency, padding(window.requests, thresholds)), 0.99);
    if (judgedP99 !== undefined && judgedP99 > thresholds.maxP99Ms) {
      const p99 = quantileMs(window.latency, 0.99)!;
      return {
        decision: 'rollback',
        reason:
          `p99 ${p99.toFixed(1)} ms above ${thresholds.maxP99Ms} ms` +
          belowVolume(window.requests, thresholds, 'requests'),
      };
    }
  }
  if (agreementLow) return { decision: 'rollback', reason: agreementText() };
  if (window.requests < thresholds.minRequests) {
    return {
      decision: 'hold',
      reason: `${window.requests} requests, fewer than the ${thresholds.minRequests} needed to judge`,
    };
  }
  const p99 = quantileMs(window.latency, 0.99);
  return {
    decision: 'promote',
    reason: `error rate ${percent(window.errors / window.requests)}, p99 ${p99 === undefined ? '-' : `${p99.toFixed(1)} ms`} over ${window.requests} requests`,
  };
}

/** A window's numbers as people read them: rates and p99 worked out, null where nothing was measured. */
export interface RolloutWindowNumbers {
  readonly requests: number;
  readonly errors: number;
  readonly errorRate: number | null;
  readonly p99Ms: number | null;
  readonly mirrored: number;
  readonly mirrorErrors: number;
  readonly agreeing: number;
  readonly disagreeing: number;
  readonly agreement: number | null;
  /** Mirrored rows left out of the agreement (sampled generations without a seed). */
  readonly uncompared: number;
  /** Whether the shadow phase counts compared rows (true) or answered mirrors (false). */
  readonly comparesAnswers: boolean;
}

/** The numbers of `window` for status and history (the decision reads the window itself). */
export function windowNumbers(window: RolloutWindow): RolloutWindowNumbers {
  const compared = window.agreeing + window.disagreeing;
  return {
    requests: window.requests,
    errors: window.errors,
    errorRate: window.requests > 0 ? window.errors / window.requests : null,
    p99Ms: quantileMs(window.latency, 0.99) ?? null,
    mirrored: window.mirrored ?? 0,
    mirrorErrors: window.mirrorErrors ?? 0,
    agreeing: window.agreeing,
    disagreeing: window.disagreeing,
    agreement: compared > 0 ? window.agreeing / compared : null,
    uncompared: window.uncompared ?? 0,
    comparesAnswers: window.comparesAnswers !== false,
  };
}

/** How many requests a window below `minRequests` lacks: they count as successes. */
function padding(count: number, thresholds: RolloutThresholds): number {
  return Math.max(0, thresholds.minRequests - count);
}

/** The denominator of a rate: the count, or `minRequests` while fewer have been seen. */
function judgedOver(count: number, thresholds: RolloutThresholds): number {
  return count + padding(count, thresholds);
}

/** `latency` with `extra` requests added to its first bucket (as if they had taken no time). */
function padFast(latency: LatencyBuckets, extra: number): LatencyBuckets {
  if (extra === 0) return latency;
  return { bounds: latency.bounds, cumulative: latency.cumulative.map((count) => count + extra) };
}

/** Why a breach on little traffic is final: the note a rollback below `minRequests` carries. */
function belowVolume(count: number, thresholds: RolloutThresholds, what: string): string {
  return count < thresholds.minRequests
    ? ` (${count} ${what}, fewer than the ${thresholds.minRequests} needed, but more could not bring it within the limit)`
    : '';
}

function percent(share: number): string {
  return `${(share * 100).toFixed(share < 0.1 ? 2 : 1)} %`;
}
