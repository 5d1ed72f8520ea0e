// Requests fetch will not send, as raw bytes: NUL, spaces, DEL or non-ASCII in the path or a
// header, chunked, contradictory or bad framing, `expect: 100-continue`, headers past Node's limit.
import fc from 'fast-check';
import { type FuzzRequest } from './hostile-inputs.js';

/** How a raw request's body is framed. */
type Framing = 'length' | 'chunked' | 'both' | 'bad-length' | 'expect' | 'short-length' | 'big-header';

/** The framing headers, blank line and `body` of a raw request, framed as `framing` says. */
function framed(framing: Framing, body: string): string {
  const length = Buffer.byteLength(body);
  const chunked = `${length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
  switch (framing) {
    case 'chunked':
      return `transfer-encoding: chunked\r\n\r\n${length === 0 ? '0\r\n\r\n' : chunked}`;
    case 'both':
      return `content-length: ${length}\r\ntransfer-encoding: chunked\r\n\r\n${chunked}`;
    case 'bad-length':
      return `content-length: ${length}x\r\n\r\n${body}`;
    case 'expect':
      return `expect: 100-continue\r\ncontent-length: ${length}\r\n\r\n${body}`;
    case 'short-length':
      return `content-length: ${Math.floor(length / 2)}\r\n\r\n${body}`;
    case 'big-header':
      return `x-big: ${'b'.repeat(20_000)}\r\ncontent-length: ${length}\r\n\r\n${body}`;
    case 'length':
      return `content-length: ${length}\r\n\r\n${body}`;
  }
}

/**
 * Raw requests (`bytes`, saying `connection: close`) and, as `request`, what the server's HTTP
 * parser reads of them: the path up to the first space or control byte. `bodyLimit` sizes the
 * oversized body.
 */
export function rawHttpRequests(bodyLimit: number): fc.Arbitrary<{ request: FuzzRequest; bytes: Buffer }> {
  const pathByte = fc.oneof(
    fc.integer({ min: 0x21, max: 0x7e }),
    fc.constantFrom(0x00, 0x09, 0x20, 0x7f, 0x80, 0xc3, 0xff),
  );
  const headerByte = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.constantFrom(0x00, 0x0d, 0x80, 0xff));
  return fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'POST', 'get', 'PRI', 'G\u0000T'),
      route: fc.constantFrom(
        '/serve/sentiment',
        '/v1/embeddings',
        '/v2/models/bert/infer',
        '/embed',
        '/health/live',
        '',
      ),
      tail: fc.array(pathByte, { maxLength: 20 }),
      header: fc.array(headerByte, { maxLength: 30 }),
      body: fc.constantFrom(
        '{"text": "hi"}',
        '{"inputs": "hi"}',
        '{',
        '',
        `{"text": "${'a'.repeat(bodyLimit)}"}`,
      ),
      framing: fc.constantFrom<Framing>(
        'length',
        'chunked',
        'both',
        'bad-length',
        'expect',
        'short-length',
        'big-header',
      ),
    })
    .map(({ method, route, tail, header, body, framing }) => {
      // A refused head with a large body behind it ends in a reset before the answer is read.
      if (body.length > bodyLimit) [tail, header] = [[], []];
      const path = Buffer.concat([Buffer.from(route), Buffer.from(tail)]);
      const bytes = Buffer.concat([
        Buffer.from(`${method} `, 'latin1'),
        path,
        Buffer.from(
          ' HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-type: application/json\r\nx-fuzz: ',
        ),
        Buffer.from(header),
        Buffer.from(`\r\n${framed(framing, body)}`),
      ]);
      const end = path.findIndex((byte) => byte <= 0x20 || byte === 0x7f);
      const parsed = path.subarray(0, end < 0 ? path.length : end).toString('latin1');
      // Printed cut short in a counterexample, not byte by byte.
      const describe = () =>
        `${bytes.length} bytes: ${JSON.stringify(bytes.subarray(0, 300).toString('latin1'))}`;
      return { request: { method, path: parsed, headers: {} }, bytes, [fc.toStringMethod]: describe };
    });
}
