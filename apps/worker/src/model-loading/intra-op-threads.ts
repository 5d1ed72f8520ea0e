/**
 * How many intra-op threads each onnxruntime session of a model gets. onnxruntime's own default is
 * one thread per core for every session, so `instances` sessions oversubscribe the cores
 * `instances` times over; with spinning off, a parallel op then waits for its slowest, descheduled
 * thread. So an unset count (0) shares the cores this process may run on among the instances.
 */

/** Threads per session: `requested` when set (> 0), else ⌊cores ÷ instances⌋, at least 1. */
export function resolveIntraOpThreads(requested: number, instances: number, cores: number): number {
  if (requested > 0) return requested;
  return Math.max(1, Math.floor(Math.max(1, cores) / Math.max(1, instances)));
}
