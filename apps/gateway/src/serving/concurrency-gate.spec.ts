import { describe, expect, it } from 'vitest';
import { ConcurrencyGate } from './concurrency-gate.js';

/** A task that finishes when the test says so. */
function deferred(): { promise: Promise<string>; finish: (value: string) => void } {
  let finish: (value: string) => void = () => undefined;
  const promise = new Promise<string>((resolve) => {
    finish = resolve;
  });
  return { promise, finish };
}

describe('ConcurrencyGate', () => {
  it('runs at most `limit` tasks at once and starts the waiting ones in arrival order', async () => {
    const gate = new ConcurrencyGate(2);
    const tasks = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = tasks.map((task, index) =>
      gate.run(() => {
        started.push(index);
        return task.promise;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect([gate.active, gate.queued]).toEqual([2, 2]);

    tasks[1]?.finish('b');
    await expect(runs[1]).resolves.toBe('b');
    expect(started).toEqual([0, 1, 2]);
    expect([gate.active, gate.queued]).toEqual([2, 1]);

    tasks[0]?.finish('a');
    tasks[2]?.finish('c');
    tasks[3]?.finish('d');
    await expect(Promise.all(runs)).resolves.toEqual(['a', 'b', 'c', 'd']);
    expect(started).toEqual([0, 1, 2, 3]);
    expect([gate.active, gate.queued]).toEqual([0, 0]);
  });

  it('frees the slot of a task that fails', async () => {
    const gate = new ConcurrencyGate(1);
    await expect(gate.run(() => Promise.reject(new Error('corrupt')))).rejects.toThrow('corrupt');
    await expect(gate.run(() => Promise.resolve('next'))).resolves.toBe('next');
    expect(gate.active).toBe(0);
  });

  it('refuses a limit below 1', () => {
    expect(() => new ConcurrencyGate(0)).toThrow(RangeError);
  });
});
