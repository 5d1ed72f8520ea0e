/**
 * Cancellation as the batcher and the worker's serving path use it: the part of AbortSignal they
 * read (an AbortSignal is one), and a source cheap enough to make for every request. Node's
 * AbortController makes its signal lazily but dearly (about 3 µs a signal on the reference VM,
 * against 0.05 µs here), and the worker makes one per ModelInfer call.
 */

/** What a cancellable request is handed: whether it was cancelled, and a way to hear when. */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A cancellation source and its own signal. Like an AbortSignal: `abort()` takes effect once, and
 * calls each listener once, in the order added; a listener added twice is called once; a listener
 * added after the abort is never called. A listener that throws does not keep the others from
 * running; its error is rethrown on a microtask, as an EventTarget reports one.
 */
export class CancelSource implements CancelSignal {
  #aborted = false;
  #listeners: (() => void)[] | undefined;

  /** Whether `abort()` was called. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** The signal to hand over: the source itself. */
  get signal(): CancelSignal {
    return this;
  }

  /** `once` may be given, as to an AbortSignal; every listener is called once at most anyway. */
  addEventListener(_type: 'abort', listener: () => void, _options?: { once?: boolean }): void {
    if (this.#aborted) return;
    const listeners = (this.#listeners ??= []);
    if (!listeners.includes(listener)) listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const listeners = this.#listeners;
    const at = listeners?.indexOf(listener) ?? -1;
    if (at >= 0) listeners?.splice(at, 1);
  }

  /** Cancels: every listener added so far is called once. Later calls do nothing. */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const listeners = this.#listeners ?? [];
    this.#listeners = undefined;
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}
