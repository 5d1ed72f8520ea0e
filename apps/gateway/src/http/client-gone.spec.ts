import { EventEmitter } from 'node:events';
import { type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { clientGoneSignal } from './client-gone.js';

/** Just what clientGoneSignal reads of a socket: `destroyed` and its 'close' event. */
function fakeConnection(destroyed = false): Socket & EventEmitter {
  return Object.assign(new EventEmitter(), { destroyed }) as unknown as Socket & EventEmitter;
}

describe('clientGoneSignal', () => {
  it('aborts once the connection closes, not before', () => {
    const connection = fakeConnection();
    const signal = clientGoneSignal(connection);
    expect(signal.aborted).toBe(false);
    connection.emit('close');
    expect(signal.aborted).toBe(true);
  });

  it('gives every request on one connection the same signal, with one close listener', () => {
    const connection = fakeConnection();
    const first = clientGoneSignal(connection);
    expect(clientGoneSignal(connection)).toBe(first);
    expect(connection.listenerCount('close')).toBe(1);
    expect(clientGoneSignal(fakeConnection())).not.toBe(first);
  });

  it('is already aborted for a connection that closed before its request was handled', () => {
    const connection = fakeConnection(true);
    expect(clientGoneSignal(connection).aborted).toBe(true);
    expect(connection.listenerCount('close')).toBe(0);
  });

  it('lets more requests than the default listener limit wait on one connection without a warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const signal = clientGoneSignal(fakeConnection());
      for (let i = 0; i < 20; i++) signal.addEventListener('abort', () => undefined, { once: true });
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on a later tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});
