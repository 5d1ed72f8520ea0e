import { describe, expect, it } from 'vitest';
import { DeferredUnloads, type UnloadTimers } from './deferred-unloads.js';

/** Timers that fire only when the test advances the fake clock. */
class FakeTimers implements UnloadTimers {
  now = 0;
  readonly #timers = new Map<number, { at: number; callback: () => void }>();
  #next = 0;

  set(callback: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { at: this.now + ms, callback });
    return id;
  }

  clear(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  advance(ms: number): void {
    this.now += ms;
    for (const [id, timer] of [...this.#timers]) {
      if (timer.at <= this.now) {
        this.#timers.delete(id);
        timer.callback();
      }
    }
  }
}

describe('DeferredUnloads', () => {
  it('unloads a version only once the grace period has passed', () => {
    const timers = new FakeTimers();
    const unloads = new DeferredUnloads(10_000, timers);
    const unloaded: string[] = [];
    unloads.defer('vit:1', () => unloaded.push('vit:1'));
    timers.advance(9_999);
    expect(unloaded).toEqual([]);
    expect(unloads.has('vit:1')).toBe(true);
    timers.advance(1);
    expect(unloaded).toEqual(['vit:1']);
    expect(unloads.has('vit:1')).toBe(false);
  });

  it('keeps the first deadline when the same version is deferred again by a later revision', () => {
    const timers = new FakeTimers();
    const unloads = new DeferredUnloads(10_000, timers);
    const unloaded: string[] = [];
    unloads.defer('vit:1', () => unloaded.push('first'));
    timers.advance(6_000);
    unloads.defer('vit:1', () => unloaded.push('second'));
    timers.advance(4_000);
    expect(unloaded).toEqual(['first']);
  });

  it('calls off an unload that a later revision wants again, and all of them when the worker drains', () => {
    const timers = new FakeTimers();
    const unloads = new DeferredUnloads(10_000, timers);
    const unloaded: string[] = [];
    unloads.defer('vit:1', () => unloaded.push('vit:1'));
    unloads.defer('vit:2', () => unloaded.push('vit:2'));
    unloads.defer('vit:3', () => unloaded.push('vit:3'));
    unloads.cancel('vit:1');
    unloads.cancel('vit:9');
    timers.advance(5_000);
    unloads.cancelAll();
    timers.advance(60_000);
    expect(unloaded).toEqual([]);
    expect(unloads.has('vit:2')).toBe(false);
  });

  it('does not defer with a grace of 0', () => {
    expect(new DeferredUnloads(0, new FakeTimers()).deferring).toBe(false);
    expect(new DeferredUnloads(1, new FakeTimers()).deferring).toBe(true);
  });
});
