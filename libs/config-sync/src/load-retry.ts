/**
 * When a failed model load (a worker's sessions, a gateway's tokenizer, the registry's
 * preparation of a model whose cache is full) is tried again. A load fails for reasons that pass
 * (an artifact store or registry briefly down, a file not there yet, a GPU still held by a dying
 * process) and for reasons that do not (a corrupt artifact): so it is retried with exponential
 * backoff, and given up on after `maxAttempts`, with the reason kept. A newer config revision
 * tries a model that was given up on again, from the first attempt (one whose retries are still
 * under way goes on).
 *
 * One kind of failure is never given up on: a cache with no space left (`no-space`, ENOSPC or
 * EDQUOT). Space comes back by itself (an operator frees some, a volume grows, another model's
 * files are removed) without any change to the model, so no new revision would ever come to try
 * it again; it is retried at the same backoff, at most `maxDelayMs` apart, until it loads, fails
 * for another reason, or is replaced — as Triton retries a model repository it polls, and as a
 * kubelet retries a pull.
 */

/** How failed loads are retried. */
export interface LoadRetryPolicy {
  /** Wait before the second attempt, in ms; it doubles each time. */
  readonly baseDelayMs: number;
  /** Longest wait between attempts, in ms. */
  readonly maxDelayMs: number;
  /** Attempts in all, the first included; then the load is given up (a `no-space` failure excepted). */
  readonly maxAttempts: number;
}

/**
 * What a failed attempt says about the next: `ordinary` (counted against `maxAttempts`) or
 * `no-space` (the cache is full: retried however many attempts failed).
 */
export type LoadFailureKind = 'ordinary' | 'no-space';

/**
 * The wait after failed attempt number `attempt` (1-based), or undefined to give up: an
 * `ordinary` failure is given up on once `maxAttempts` attempts have failed, a `no-space` one never.
 */
export function loadRetryDelayMs(
  attempt: number,
  policy: LoadRetryPolicy,
  kind: LoadFailureKind = 'ordinary',
): number | undefined {
  if (kind === 'ordinary' && attempt >= policy.maxAttempts) return undefined;
  // 2 ** n is Infinity past n = 1023, and min() still gives maxDelayMs.
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
}

/** The retries of a node that was not told otherwise: 1 s, doubling, at most 30 s apart, 6 attempts. */
export const DEFAULT_LOAD_RETRY: LoadRetryPolicy = { baseDelayMs: 1000, maxDelayMs: 30_000, maxAttempts: 6 };
