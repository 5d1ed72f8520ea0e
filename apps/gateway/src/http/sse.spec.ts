import { EventEmitter } from 'node:events';
import { type ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { openSse } from './sse.js';

/** The parts of a ServerResponse an SSE writer touches, recording what it was given. */
class RecordingResponse extends EventEmitter {
  statusCode = 0;
  /** Set to make `write` report a full buffer. */
  writableNeedDrain = false;
  headers: Record<string, string> = {};
  flushed = false;
  body = '';
  trailers: Record<string, string> | undefined;
  writableEnded = false;
  destroyed = false;
  socket = { setNoDelay: () => undefined };
  setHeader(name: string, value: string) {
    this.headers[name.toLowerCase()] = value;
  }
  flushHeaders() {
    this.flushed = true;
  }
  write(chunk: string) {
    this.body += chunk;
    return !this.writableNeedDrain;
  }
  addTrailers(trailers: Record<string, string>) {
    this.trailers = trailers;
  }
  end() {
    this.writableEnded = true;
  }
}

function open(extra?: Record<string, string>) {
  const res = new RecordingResponse();
  return { res, sse: openSse(res as unknown as ServerResponse, extra) };
}

describe('openSse', () => {
  it('starts a 200 event stream that no proxy buffers or caches, headers flushed at once', () => {
    const { res } = open({ 'x-request-id': 'r1' });
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      'x-request-id': 'r1',
    });
    expect(res.flushed).toBe(true);
  });

  it('frames events as an optional event line and one JSON data line, then a blank line', () => {
    const { res, sse } = open();
    sse.event({ text: 'a\nb' });
    sse.event({ done: true }, 'end');
    sse.raw('data: [DONE]');
    sse.comment('keep\nalive');
    expect(res.body).toBe(
      'data: {"text":"a\\nb"}\n\nevent: end\ndata: {"done":true}\n\ndata: [DONE]\n\n: keep alive\n\n',
    );
  });

  it('sends trailers at the end and writes nothing after it', () => {
    const { res, sse } = open({ trailer: 'server-timing' });
    sse.end({ 'server-timing': 'total;dur=1' });
    sse.event({ late: true });
    sse.end();
    expect(res.trailers).toEqual({ 'server-timing': 'total;dur=1' });
    expect(res.body).toBe('');
    expect(sse.closed).toBe(true);
  });

  it('is closed once the client went away', () => {
    const { res, sse } = open();
    res.destroyed = true;
    sse.event({ text: 'x' });
    expect(sse.closed).toBe(true);
    expect(res.body).toBe('');
  });

  it('says when the response buffer is full, and drained() waits for the drain or the close', async () => {
    const { res, sse } = open();
    expect(sse.event({ n: 1 })).toBe(true);
    await sse.drained(); // not full: at once
    res.writableNeedDrain = true;
    expect(sse.event({ n: 2 })).toBe(false);
    let drained = false;
    const waiting = sse.drained().then(() => (drained = true));
    await Promise.resolve();
    expect(drained).toBe(false);
    res.writableNeedDrain = false;
    res.emit('drain');
    await waiting;
    res.writableNeedDrain = true;
    sse.comment('x');
    const closing = sse.drained();
    res.emit('close');
    await closing;
    expect(res.listenerCount('drain') + res.listenerCount('close')).toBe(0);
  });
});
