/**
 * Unloads held back for a grace period. A worker and the gateways apply a config revision each on
 * its own schedule; when a route moves off a version, a worker that unloads it at once refuses the
 * requests gateways still send it under the old route ("no worker can serve model x:1"). So a
 * READY version that is no longer wanted keeps serving for `graceMs` and is unloaded only then,
 * unless a later revision wants it again first (the unload is cancelled).
 */

/** Timers the schedule runs on (the global ones in production, fake ones in its unit test). */
export interface UnloadTimers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const GLOBAL_TIMERS: UnloadTimers = {
  set: (callback, ms) => setTimeout(callback, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** The unloads waiting for their grace period to end, by model id. */
export class DeferredUnloads {
  readonly #pending = new Map<string, unknown>();

  constructor(
    private readonly graceMs: number,
    private readonly timers: UnloadTimers = GLOBAL_TIMERS,
  ) {}

  /** Whether unloads wait at all (a grace of 0 unloads at once). */
  get deferring(): boolean {
    return this.graceMs > 0;
  }

  /** Runs `unload` once the grace period has passed, unless cancelled; a second call for `id` keeps the first. */
  defer(id: string, unload: () => void): void {
    if (this.#pending.has(id)) return;
    this.#pending.set(
      id,
      this.timers.set(() => {
        this.#pending.delete(id);
        unload();
      }, this.graceMs),
    );
  }

  /** Whether `id`'s unload is waiting. */
  has(id: string): boolean {
    return this.#pending.has(id);
  }

  /** Calls off `id`'s unload (a later revision wants it again). */
  cancel(id: string): void {
    const handle = this.#pending.get(id);
    if (handle === undefined) return;
    this.timers.clear(handle);
    this.#pending.delete(id);
  }

  /** Calls off every waiting unload (the worker drains everything anyway). */
  cancelAll(): void {
    for (const id of [...this.#pending.keys()]) this.cancel(id);
  }
}
