/**
 * A gateway event loop's graceful termination, in this order:
 *
 *  1. `unready`: readiness answers 503 at once, while requests are still accepted and served.
 *  2. Wait `delayMs` (GATEWAY_SHUTDOWN_DELAY_MS): the time a load balancer that polls readiness
 *     (a Kubernetes Service's endpoints) needs to stop sending here. Skipped when 0.
 *  3. `closing`: stop accepting connections; requests in flight are answered, then what the app
 *     holds (worker channels, the async consumer) is released. `close()` resolves once all is done.
 *  4. `drained` when that finished within `drainTimeoutMs` (GATEWAY_DRAIN_TIMEOUT_MS), else
 *     `drain-timeout`: the caller exits either way, and a timed-out close is abandoned.
 *
 * The steps are the caller's and the clock is injected, so the order is testable without a server.
 */

/** What the app does at each step. */
export interface ShutdownSteps {
  /** Makes readiness false; nothing else changes. */
  markUnready(): void;
  /** Stops accepting, waits for in-flight requests, releases resources. */
  close(): Promise<void>;
}

/** Waits; a real one uses timers, a test's resolves when the test says. */
export interface ShutdownClock {
  sleep(ms: number): Promise<void>;
}

/** How long each waiting step may take, in ms. */
export interface ShutdownTiming {
  delayMs: number;
  drainTimeoutMs: number;
}

/** How a shutdown ended. */
export type ShutdownOutcome = 'drained' | 'drain-timeout';

/** Reported as each step starts (and as it ends), e.g. for logs. */
export type ShutdownPhase = 'unready' | 'closing' | ShutdownOutcome;

/** Runs the steps in order (this file's top comment) and resolves with how it ended. */
export async function shutDownGracefully(
  steps: ShutdownSteps,
  timing: ShutdownTiming,
  clock: ShutdownClock,
  onPhase: (phase: ShutdownPhase) => void = () => undefined,
): Promise<ShutdownOutcome> {
  steps.markUnready();
  onPhase('unready');
  if (timing.delayMs > 0) await clock.sleep(timing.delayMs);
  onPhase('closing');
  const outcome = await Promise.race([
    steps.close().then((): ShutdownOutcome => 'drained'),
    clock.sleep(timing.drainTimeoutMs).then((): ShutdownOutcome => 'drain-timeout'),
  ]);
  onPhase(outcome);
  return outcome;
}

/**
 * Node timers, unref'd: the listening server keeps the process alive through the delay, and a
 * drain that finished must not wait for its timeout.
 */
export const timerClock: ShutdownClock = {
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()),
};
