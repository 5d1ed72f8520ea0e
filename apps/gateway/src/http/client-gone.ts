import { setMaxListeners } from 'node:events';
import { type Socket } from 'node:net';

/** The signal of each open connection, made on its first request and aborted when it closes. */
const goneByConnection = new WeakMap<Socket, AbortSignal>();

/**
 * A signal that aborts once the client's connection closes, which is how an HTTP/1.1 client
 * gives up on a request: the protocol has no other way to cancel one. One signal (and one
 * 'close' listener) per connection, shared by the requests it carries, replaces an
 * AbortController and a response listener per request; a connection that closes takes every
 * request still running on it along.
 */
export function clientGoneSignal(connection: Socket): AbortSignal {
  let signal = goneByConnection.get(connection);
  if (signal === undefined) {
    const controller = new AbortController();
    signal = controller.signal;
    // Each request running on the connection listens while it waits on a worker; pipelined
    // requests may be more than the default warning threshold of 10.
    setMaxListeners(0, signal);
    goneByConnection.set(connection, signal);
    if (connection.destroyed) controller.abort();
    else connection.once('close', () => controller.abort());
  }
  return signal;
}
