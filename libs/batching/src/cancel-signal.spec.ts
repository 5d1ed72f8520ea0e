import { describe, expect, it, vi } from 'vitest';
import { CancelSource } from './cancel-signal.js';

describe('CancelSource', () => {
  it('is its own signal, not aborted until abort() is called', () => {
    const source = new CancelSource();
    expect(source.signal).toBe(source);
    expect(source.aborted).toBe(false);
    source.abort();
    expect(source.signal.aborted).toBe(true);
  });

  it('calls each listener once, in the order added, however often abort() is called', () => {
    const source = new CancelSource();
    const heard: string[] = [];
    source.addEventListener('abort', () => heard.push('first'));
    source.addEventListener('abort', () => heard.push('second'), { once: true });
    source.abort();
    source.abort();
    expect(heard).toEqual(['first', 'second']);
  });

  it('calls a listener added twice once, and a removed one never', () => {
    const source = new CancelSource();
    const twice = vi.fn();
    const removed = vi.fn();
    source.addEventListener('abort', twice);
    source.addEventListener('abort', twice);
    source.addEventListener('abort', removed);
    source.removeEventListener('abort', removed);
    source.removeEventListener('abort', vi.fn()); // never added: nothing happens
    source.abort();
    expect(twice).toHaveBeenCalledTimes(1);
    expect(removed).not.toHaveBeenCalled();
  });

  it('never calls a listener added after the abort, as an AbortSignal does not', () => {
    const source = new CancelSource();
    source.abort();
    const late = vi.fn();
    source.addEventListener('abort', late);
    source.abort();
    expect(late).not.toHaveBeenCalled();
  });

  it('runs the other listeners when one throws, and rethrows its error on a microtask', async () => {
    const source = new CancelSource();
    const after = vi.fn();
    source.addEventListener('abort', () => {
      throw new Error('listener failed');
    });
    source.addEventListener('abort', after);
    const reported = new Promise<unknown>((resolve) => {
      const original = globalThis.queueMicrotask;
      vi.spyOn(globalThis, 'queueMicrotask').mockImplementationOnce((task) =>
        original(() => {
          try {
            task();
          } catch (error) {
            resolve(error);
          }
        }),
      );
    });
    source.abort();
    expect(after).toHaveBeenCalledTimes(1);
    expect(await reported).toEqual(new Error('listener failed'));
    vi.restoreAllMocks();
  });
});
