/**
 * How many intra-op threads each onnxruntime session of a model gets. onnxruntime's own default is
 * one thread per core for every session, so `instances` sessions oversubscribe the cores
 * `instances` times over; with spinning off, a parallel op then waits for its slowest, descheduled
 * thread. So an unset count (0) shares the cores this process may run on among the instances.
 *
 * Sharing costs a lone request: on an otherwise idle worker its batch runs on one instance's share
 * of the cores. So with the count unset and several instances, a model may also get a solo
 * session with a thread per core, which runs only a batch that finds every instance idle and no
 * other row waiting (apps/worker/src/serving/session-pool.ts).
 */

/** Threads per session: `requested` when set (> 0), else ⌊cores ÷ instances⌋, at least 1. */
export function resolveIntraOpThreads(requested: number, instances: number, cores: number): number {
  if (requested > 0) return requested;
  return Math.max(1, Math.floor(Math.max(1, cores) / Math.max(1, instances)));
}

/**
 * Threads of the solo session, or 0 for none: with the count unset (0) and the cores shared among
 * two or more instances, every core; else none (an explicit count is kept as given, and a single
 * instance already has every core).
 */
export function resolveSoloThreads(requested: number, instances: number, cores: number): number {
  if (requested > 0 || instances < 2) return 0;
  const whole = Math.max(1, cores);
  return whole > resolveIntraOpThreads(0, instances, whole) ? whole : 0;
}

/**
 * Threads of the inline session (the solo session on the event-loop thread, apps/worker/src/model-loading/onnx-session.inline.ts):
 * `requested` when set (> 0), else every core, since it runs only while nothing else computes.
 */
export function resolveInlineThreads(requested: number, cores: number): number {
  return requested > 0 ? requested : Math.max(1, cores);
}
