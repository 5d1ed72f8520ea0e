// A small Server-Sent Events client over node:http for tests: parses events as they arrive, and
// exposes the response trailers (fetch cannot read them) and a way to hang up mid-stream.
import { type IncomingHttpHeaders, type IncomingMessage, request } from 'node:http';

/** One parsed event: its `event:` name (`message` when absent) and its `data:` lines joined. */
export interface SseEvent {
  event: string;
  data: string;
}

/** An SSE answer being read. */
export interface SseStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** Events in order; ends when the server ends the answer (or `hangUp` was called). */
  events: AsyncIterable<SseEvent>;
  /** The HTTP trailers, once the answer has ended. */
  trailers(): Record<string, string | undefined>;
  /** Whether the answer ended as HTTP ends one (its last chunk came), not by a torn connection. */
  complete(): boolean;
  /** The raw body text when the answer is not an event stream (an error answered before it began). */
  text(): Promise<string>;
  /** Closes the connection, as a client that goes away does. */
  hangUp(): void;
}

/** Splits SSE text into events (https://html.spec.whatwg.org/multipage/server-sent-events.html). */
export function parseSseBlock(block: string): SseEvent | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length === 0 ? undefined : { event, data: data.join('\n') };
}

async function* readEvents(response: IncomingMessage): AsyncGenerator<SseEvent> {
  response.setEncoding('utf8');
  let buffer = '';
  try {
    for await (const chunk of response as AsyncIterable<string>) {
      buffer += chunk;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const parsed = parseSseBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (parsed) yield parsed;
        end = buffer.indexOf('\n\n');
      }
    }
  } catch (error) {
    // A hang-up aborts the body: the stream simply ends for the test.
    if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET' && !response.destroyed) throw error;
  }
}

/** POSTs JSON (bytes as they are: set their content-type in `headers`) to `url` and starts reading its answer as an event stream. */
export function postSse(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    });
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        events: { [Symbol.asyncIterator]: () => readEvents(response) },
        trailers: () => response.trailers,
        complete: () => response.complete,
        text: async () => {
          response.setEncoding('utf8');
          let text = '';
          for await (const chunk of response as AsyncIterable<string>) text += chunk;
          return text;
        },
        hangUp: () => outgoing.destroy(),
      });
    });
    outgoing.end(body instanceof Uint8Array ? body : JSON.stringify(body));
  });
}
