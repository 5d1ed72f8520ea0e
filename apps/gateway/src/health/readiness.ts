/**
 * The gateway's readiness decision (`GET /health/ready`), as a pure function. Applied in order:
 *
 *  1. Shutting down (SIGTERM or SIGINT received) → not ready (`shutting-down`). The gateway keeps
 *     serving for GATEWAY_SHUTDOWN_DELAY_MS meanwhile, so a load balancer that polls readiness
 *     takes it out before it stops accepting.
 *  2. No config revision in force yet → not ready (`no-revision`): it knows no endpoint.
 *  3. Otherwise → ready (`serving`).
 *
 * Whether each endpoint can be served is deliberately not part of it: that is reported per
 * endpoint (`modelgate_endpoint_ready`, the body of /health/ready, the heartbeat behind
 * `modelgate status`). An endpoint bound to a worker group with no workers is equally unservable
 * on every gateway, so folding it in would take every gateway out of its Service at once, and the
 * endpoints that work with them.
 */

/** Why the gateway is or is not ready (rule numbers in this file's top comment). */
export type ReadinessReason = 'shutting-down' | 'no-revision' | 'serving';

/** What the decision looks at. */
export interface ReadinessInput {
  /** The revision of the endpoint table in force, undefined before the first is applied. */
  readonly revision: number | undefined;
  /** True from the termination signal on. */
  readonly shuttingDown: boolean;
}

/** The verdict and its reason. */
export interface ReadinessVerdict {
  readonly ready: boolean;
  readonly reason: ReadinessReason;
}

/** Decides readiness from the process state alone (rules in this file's top comment). */
export function decideReadiness(input: ReadinessInput): ReadinessVerdict {
  if (input.shuttingDown) return { ready: false, reason: 'shutting-down' };
  if (input.revision === undefined) return { ready: false, reason: 'no-revision' };
  return { ready: true, reason: 'serving' };
}
