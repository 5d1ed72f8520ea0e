/**
 * When a failed model load (a worker's sessions, a gateway's tokenizer) is tried again. A load fails for reasons that pass (an artifact store
 * or registry briefly down, a file not there yet, a GPU still held by a dying process) and for
 * reasons that do not (a corrupt artifact): so it is retried with exponential backoff, and given up
 * on after `maxAttempts`, with the reason kept. A newer config revision tries a model that was
 * given up on again, from the first attempt (one whose retries are still under way goes on).
 */

/** How failed loads are retried. */
export interface LoadRetryPolicy {
  /** Wait before the second attempt, in ms; it doubles each time. */
  readonly baseDelayMs: number;
  /** Longest wait between attempts, in ms. */
  readonly maxDelayMs: number;
  /** Attempts in all, the first included; then the load is given up. */
  readonly maxAttempts: number;
}

/** The wait after failed attempt number `attempt` (1-based), or undefined to give up. */
export function loadRetryDelayMs(attempt: number, policy: LoadRetryPolicy): number | undefined {
  if (attempt >= policy.maxAttempts) return undefined;
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
}

/** The retries of a node that was not told otherwise: 1 s, doubling, at most 30 s apart, 6 attempts. */
export const DEFAULT_LOAD_RETRY: LoadRetryPolicy = { baseDelayMs: 1000, maxDelayMs: 30_000, maxAttempts: 6 };
