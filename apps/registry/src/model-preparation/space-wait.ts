/**
 * A preparation that found the registry's artifact cache full (ENOSPC, EDQUOT). Unlike any other
 * failure it is not given up on: the model is FAILED at once, with a reason that says "no space
 * left on device", names the cache and when the next try comes, and its job tries again, at the
 * preparation backoff doubling up to `NO_SPACE_MAX_DELAY_MS`, for as long as the cache stays full
 * (load-retry.ts's `no-space` kind). Once space returns the model becomes READY by itself, with no
 * one registering it again. These waits count against no attempt limit.
 */
import { loadRetryDelayMs } from '@modelgate/config-sync';

/** Longest wait between two tries of a model whose cache is full, in ms. */
export const NO_SPACE_MAX_DELAY_MS = 30_000;

/** Shortest first wait, in ms: REGISTRY_PREPARATION_BACKOFF_MS may be 0, which would spin on a full disk. */
export const NO_SPACE_MIN_DELAY_MS = 1000;

/** The wait after the `failures`-th (1-based) try of a job that found the cache full, in ms. */
export function noSpaceRetryDelayMs(failures: number, backoffMs: number): number {
  const policy = {
    baseDelayMs: Math.min(Math.max(backoffMs, NO_SPACE_MIN_DELAY_MS), NO_SPACE_MAX_DELAY_MS),
    maxDelayMs: NO_SPACE_MAX_DELAY_MS,
    maxAttempts: 1,
  };
  return loadRetryDelayMs(failures, policy, 'no-space') ?? NO_SPACE_MAX_DELAY_MS;
}

/** The FAILED reason of a model whose cache is full: the store's reason and when it is tried next. */
export function noSpaceStatusReason(reason: string, delayMs: number): string {
  const seconds = delayMs / 1000;
  const shown = Number.isInteger(seconds) ? `${seconds} s` : `${seconds.toFixed(1)} s`;
  return `${reason} (retrying in ${shown}, and until space returns)`;
}

/** The reason shown while a model that waited for space is tried again. */
export function noSpaceRetryingReason(failures: number): string {
  return `retrying after no space left on device (try ${failures + 1})`;
}
