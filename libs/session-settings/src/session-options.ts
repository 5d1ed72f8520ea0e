/**
 * The onnxruntime options every session of the worker opens with, written once: the worker's
 * session adapter uses them, and so does the bench's raw session.run reference, which must run the
 * model exactly as the worker does.
 *
 * Spinning: an idle intra-op thread may spin a while before it sleeps. Between two runs that
 * spinning steals the core the event loop and the other instances need, so instances
 * never spin. Inside one run the other side holds: with spinning off, every parallel section of
 * the graph wakes the sleeping threads again, and on a virtual machine each wake of an idle core
 * costs tens of microseconds, dozens of times per run. So a session that runs only while nothing
 * else computes (the worker's solo session, apps/worker/src/serving/session-pool.ts) spins within a run and stops the moment
 * the run returns (`session.force_spinning_stop`): its lone requests run at the model's speed, and
 * no core is held between requests. The inline solo session (apps/worker/src/model-loading/onnx-session.inline.ts) may keep
 * spinning after a run for onnxruntime's own bounded while, as a session with the library's
 * defaults does (WORKER_INLINE_IDLE_SPIN): the next lone request then finds its threads awake.
 */
import type * as ort from 'onnxruntime-node';

/** One provider as handed to onnxruntime's `executionProviders`. */
export type ProviderConfig =
  { name: 'tensorrt'; deviceId: number } | { name: 'cuda'; deviceId: number } | { name: 'cpu' };

/** Session-wide options that do not depend on the provider. */
export interface SessionSettings {
  /** Intra-op threads of this session (already resolved: see `resolveIntraOpThreads`). */
  intraOpThreads: number;
  /**
   * Whether the intra-op threads spin within a run and stop when it returns. Only for a session
   * that runs while nothing else computes (the solo session); with one thread there is nothing to
   * spin, and the option changes nothing.
   * @defaultValue false
   */
  spinWithinRuns?: boolean;
  /**
   * With `spinWithinRuns`: whether the threads also go on spinning after a run returns, for
   * onnxruntime's bounded spin before they sleep (no `force_spinning_stop`).
   * @defaultValue false
   */
  spinAfterRuns?: boolean;
}

/** Whether a session opened with `settings` spins within its runs: asked for, and more than one thread. */
export function spinsWithinRuns(settings: SessionSettings): boolean {
  return settings.spinWithinRuns === true && settings.intraOpThreads > 1;
}

/** The options of one session: graph optimisation `all`, the providers given, threads and spinning as set. */
export function sessionOptions(
  providers: readonly ProviderConfig[],
  settings: SessionSettings,
): ort.InferenceSession.SessionOptions {
  const spin = spinsWithinRuns(settings);
  return {
    executionProviders: [...providers],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: settings.intraOpThreads,
    extra: {
      session: {
        intra_op: { allow_spinning: spin ? '1' : '0' },
        inter_op: { allow_spinning: '0' },
        // Read only with spinning on: the threads stop spinning as soon as the last run returns.
        ...(spin && settings.spinAfterRuns !== true ? { force_spinning_stop: '1' } : {}),
      },
    },
    logSeverityLevel: 3,
  };
}
