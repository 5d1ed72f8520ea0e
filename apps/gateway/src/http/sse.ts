import { type ServerResponse } from 'node:http';

/** Writes one Server-Sent Events answer (https://html.spec.whatwg.org/multipage/server-sent-events.html). */
export interface SseWriter {
  /**
   * Writes `event: <name>\n` (when given) and `data: <JSON of data>\n\n`; ignored once closed.
   * Like `stream.write`, false says the response buffer is full: await `drained()` before more.
   */
  event(data: unknown, name?: string): boolean;
  /** Writes a comment line `: <text>\n\n` (keeps proxies from timing the stream out); see `event`. */
  comment(text: string): boolean;
  /** Writes `line` and a blank line as they are, e.g. OpenAI's `data: [DONE]`; see `event`. */
  raw(line: string): boolean;
  /** Resolves once the response buffer drained, or at once when it is not full or the answer closed. */
  drained(): Promise<void>;
  /** Ends the answer, with HTTP trailers when given (declared up front by `openSse`'s `trailers`). */
  end(trailers?: Record<string, string>): void;
  /** True once `end` was called or the client went away: nothing more is written. */
  readonly closed: boolean;
}

/**
 * Starts an SSE answer on a node ServerResponse: status 200, `text/event-stream`, no caching,
 * `X-Accel-Buffering: no` (nginx would buffer it), headers flushed at once. `extraHeaders` go out
 * with them; a `Trailer` header among them announces the trailers `end` may send.
 */
export function openSse(res: ServerResponse, extraHeaders?: Record<string, string>): SseWriter {
  return new NodeSseWriter(res, extraHeaders ?? {});
}

/** One `data:` field per line of the payload: JSON.stringify never yields a raw newline, `raw` may. */
function frame(payload: string, name?: string): string {
  const head = name === undefined ? '' : `event: ${oneLine(name)}\n`;
  return `${head}${payload
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}`)
    .join('\n')}\n\n`;
}

/** An event name cannot hold a line break (it would start another field). */
function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}

class NodeSseWriter implements SseWriter {
  private ended = false;

  constructor(
    private readonly res: ServerResponse,
    extraHeaders: Record<string, string>,
  ) {
    res.statusCode = 200;
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('cache-control', 'no-cache');
    res.setHeader('x-accel-buffering', 'no');
    for (const [name, value] of Object.entries(extraHeaders)) res.setHeader(name, value);
    res.flushHeaders();
    // Deltas are small and latency matters more than packet count.
    res.socket?.setNoDelay(true);
  }

  get closed(): boolean {
    return this.ended || this.res.writableEnded || this.res.destroyed;
  }

  event(data: unknown, name?: string): boolean {
    return this.write(frame(JSON.stringify(data), name));
  }

  comment(text: string): boolean {
    return this.write(`: ${oneLine(text)}\n\n`);
  }

  raw(line: string): boolean {
    return this.write(`${line}\n\n`);
  }

  drained(): Promise<void> {
    if (this.closed || !this.res.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  end(trailers?: Record<string, string>): void {
    if (this.closed) return;
    this.ended = true;
    if (trailers && Object.keys(trailers).length > 0) this.res.addTrailers(trailers);
    this.res.end();
  }

  /** False when the response buffer is over its high-water mark (the reader is slower than us). */
  private write(chunk: string): boolean {
    if (this.closed) return true;
    return this.res.write(chunk);
  }
}
