/** Options of waitUntil. */
export interface WaitOptions {
  /** What is awaited, for the timeout message. */
  what: string;
  /** Epoch ms after which waiting fails. */
  deadline: number;
  /** Aborts the wait (the launcher is stopping). */
  signal: AbortSignal;
  /** Pause between checks, in ms. @defaultValue 250 */
  intervalMs?: number;
}

/** Thrown by a check to end the wait at once: what is awaited will never happen. */
export class WaitFailed extends Error {
  override name = 'WaitFailed';
}

/**
 * Calls `check` until it returns a value other than undefined and resolves with it. A check that
 * throws counts as "not yet", unless it throws WaitFailed. Rejects when `signal` aborts or `deadline` passes; the timeout
 * message names `what` and the last error seen.
 */
export async function waitUntil<T>(check: () => Promise<T | undefined>, options: WaitOptions): Promise<T> {
  let lastError: unknown;
  for (;;) {
    options.signal.throwIfAborted();
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      if (error instanceof WaitFailed) throw error;
      lastError = error;
    }
    options.signal.throwIfAborted();
    if (Date.now() > options.deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out waiting for ${options.what}${cause}`);
    }
    await sleep(options.intervalMs ?? 250, options.signal);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Resolves true when `url` answers 2xx within 2 s, undefined otherwise (a waitUntil check). */
export async function answersOk(url: string): Promise<true | undefined> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await response.body?.cancel();
  return response.ok ? true : undefined;
}
