/** Injection token of the rollouts' clock: ms since the epoch (Date.now unless a test replaces it). */
export const ROLLOUT_CLOCK = Symbol('ROLLOUT_CLOCK');

/** The rollouts' clock. */
export type RolloutClock = () => number;

/**
 * How long the candidate must have been READY on a worker before its first window starts: the
 * gateways find ready workers through the same heartbeats on their own discovery interval (1 s by
 * default), so traffic sent at once could still find no worker and be counted against it.
 */
export const CANDIDATE_SETTLE_MS = 2000;
