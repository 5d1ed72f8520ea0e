// fast-check arbitraries for what a careless or hostile client sends the gateway: JSON of the
// wrong shape and type, numbers JSON can write but JavaScript cannot hold, nesting deep enough to
// blow a recursive walk, bytes that are not UTF-8, NUL bytes, wrong content types, oversized
// bodies, headers and query strings. Valid bodies are built from per-route templates whose fields
// are sometimes swapped for hostile values, so the requests reach past the first check.
import fc from 'fast-check';

/** One request to send: the path as written on the wire (query included), headers and body bytes. */
export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

/** A body template: each field's plausible values; hostile values are mixed in by {@link bodyFrom}. */
export type BodyTemplate = Record<string, fc.Arbitrary<unknown>>;

// JSON text JSON.stringify cannot write: spliced in after stringifying, in place of a marker string.
// `@@raw:number:1e400@@` is that literal, `@@raw:array:5000@@` 5000 nested arrays.
const RAW_MARKER = /"@@raw:(number|array|object):([^@"]*)@@"/g;
const raw = (kind: 'number' | 'array' | 'object', text: string): string => `@@raw:${kind}:${text}@@`;

/** Number literals past float64 or safe integers, negative zero, subnormals. */
const HUGE_NUMBERS = [
  '1e308',
  '-1e308',
  '1e400',
  '-1e400',
  '-0',
  '5e-324',
  '1e-400',
  '9007199254740993',
  '-9007199254740993',
  '123456789012345678901234567890123456789',
  '1.7976931348623157e308',
  '0.000000000000000000000000000001',
];

/** `depth` levels of arrays or objects around a number. */
function nested(kind: 'array' | 'object', depth: number): string {
  return kind === 'array'
    ? '['.repeat(depth) + '1' + ']'.repeat(depth)
    : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** Strings a tokenizer or parser may choke on: NUL, lone surrogates, controls, RTL, very long. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ maxLength: 40 }), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 3 },
  {
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\u0000',
      'a\u0000b',
      '\ud800',
      'x\udfff\ud800y',
      '\u202e\u200b\ufeff',
      '\r\n\t\u000b',
      'data:image/png;base64,',
      '💥'.repeat(50),
      '[CLS] [SEP] [MASK] <|endoftext|>',
    ),
    weight: 2,
  },
  { arbitrary: fc.integer({ min: 1_000, max: 300_000 }).map((n) => 'word '.repeat(n / 5)), weight: 1 },
);

/** A value of any JSON type, often the wrong one for the field it lands in. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constantFrom(null, true, false, 0, -1, 1, 0.5, -0, 2 ** 53 + 2, 1e308, -1e308), weight: 4 },
  { arbitrary: fc.constantFrom(...HUGE_NUMBERS).map((n) => raw('number', n)), weight: 2 },
  { arbitrary: fc.double(), weight: 1 },
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: hostileString, weight: 3 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 3 },
  { arbitrary: fc.array(fc.oneof(hostileString, fc.integer()), { maxLength: 10 }), weight: 2 },
  {
    arbitrary: fc
      .tuple(fc.constantFrom('array' as const, 'object' as const), fc.integer({ min: 50, max: 20_000 }))
      .map(([kind, depth]) => raw(kind, String(depth))),
    weight: 1,
  },
);

/** Keys a client might add or mistype, the prototype-polluting ones included. */
const strayKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'model',
  'stream',
  '',
  'x'.repeat(300),
);

/**
 * A body from `template`: its `required` fields present (but, at times, one), the others present
 * or not; often as is, else with one field (or a stray key) set to a hostile value.
 */
export function bodyFrom(template: BodyTemplate, required: readonly string[] = []): fc.Arbitrary<unknown> {
  const keys = Object.keys(template);
  const bent = fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 3 },
    { arbitrary: fc.tuple(fc.oneof(fc.constantFrom(...keys), strayKey), hostileValue), weight: 2 },
  );
  const dropped: fc.Arbitrary<string | undefined> =
    required.length === 0
      ? fc.constant(undefined)
      : fc.oneof(
          { arbitrary: fc.constant(undefined), weight: 9 },
          { arbitrary: fc.constantFrom(...required), weight: 1 },
        );
  return fc
    .tuple(fc.record(template, { requiredKeys: required as string[] }), bent, dropped)
    .map(([body, bend, drop]) => {
      const out: Record<string, unknown> = { ...body };
      if (drop !== undefined) delete out[drop];
      // Defined, not assigned: `__proto__` becomes a key of the JSON, not the object's prototype.
      if (bend !== undefined) Object.defineProperty(out, bend[0], { value: bend[1], enumerable: true });
      return out;
    });
}

/** Writes `value` as JSON text, splicing the raw markers in. */
export function toJsonText(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(RAW_MARKER, (_match, kind: string, text: string) =>
    kind === 'number' ? text : nested(kind as 'array' | 'object', Number(text)),
  );
}

const encoder = new TextEncoder();

/** Byte sequences that are not UTF-8: a stray continuation, overlong, a surrogate, past U+10FFFF. */
const INVALID_UTF8 = [
  [0xff],
  [0x80],
  [0xc3, 0x28],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
];

/** Inserts `bytes` into `text`'s UTF-8 at a fraction `at` of its length. */
function spliceBytes(text: Uint8Array, at: number, bytes: readonly number[]): Uint8Array {
  const cut = Math.floor(text.length * at);
  return Uint8Array.from([...text.subarray(0, cut), ...bytes, ...text.subarray(cut)]);
}

/**
 * The bytes sent for a JSON value: mostly its text; else truncated, with invalid UTF-8 or a NUL
 * byte inside, random bytes, empty, or padded past `bodyLimit` bytes.
 */
export function bodyBytes(value: fc.Arbitrary<unknown>, bodyLimit: number): fc.Arbitrary<Uint8Array> {
  const text = value.map((v) => encoder.encode(toJsonText(v)));
  const at = fc.double({ min: 0, max: 1, noNaN: true });
  return fc.oneof(
    { arbitrary: text, weight: 40 },
    { arbitrary: fc.tuple(text, at).map(([t, f]) => t.subarray(0, Math.floor(t.length * f))), weight: 2 },
    {
      arbitrary: fc
        .tuple(text, at, fc.constantFrom(...INVALID_UTF8))
        .map(([t, f, b]) => spliceBytes(t, f, b)),
      weight: 2,
    },
    { arbitrary: fc.tuple(text, at).map(([t, f]) => spliceBytes(t, f, [0])), weight: 1 },
    { arbitrary: fc.tuple(text).map(([t]) => Uint8Array.from([0xef, 0xbb, 0xbf, ...t])), weight: 1 },
    { arbitrary: fc.uint8Array({ maxLength: 300 }), weight: 1 },
    { arbitrary: fc.constant(new Uint8Array(0)), weight: 1 },
    {
      arbitrary: fc
        .nat({ max: 64 * 1024 })
        .map((extra) => encoder.encode(`{"text": "${'a'.repeat(bodyLimit + extra)}"}`)),
      weight: 1,
    },
  );
}

/** Content types: mostly JSON, else wrong, missing, another charset, or an image type. */
export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 40 },
  {
    arbitrary: fc.constantFrom(
      undefined,
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/vnd.modelgate+json',
      'application/json; charset=latin1',
      'application/jsonx',
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=zz',
      'application/octet-stream',
      'image/png',
      'image/jpeg',
      'image/svg+xml',
    ),
    weight: 4,
  },
  { arbitrary: fc.stringMatching(/^[\x21-\x7e]{1,40}$/), weight: 1 },
);

/** A header value fetch will send: visible ASCII, inner spaces. */
const headerValue = fc.oneof(
  fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,60}[\x21-\x7e])?$/),
  fc.stringMatching(/^[\x21-\x7e]{200,400}$/),
);

/** `arbitrary`'s value one time in `oneIn`, else undefined. */
export function sometimes<T>(arbitrary: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: oneIn - 1 }, { arbitrary, weight: 1 });
}

/** Headers the gateway reads (and some it should ignore), each mostly absent, valid or not. */
export const hostileHeaders: fc.Arbitrary<Record<string, string>> = fc
  .record({
    prefer: sometimes(
      fc.oneof(fc.constantFrom('respond-async', 'respond-async, wait=5', 'RESPOND-ASYNC'), headerValue),
      6,
    ),
    'x-request-id': sometimes(fc.oneof(fc.nat().map(String), fc.uuid(), headerValue), 3),
    authorization: sometimes(fc.oneof(fc.constantFrom('Bearer x', 'Basic Og==', 'Bearer'), headerValue), 5),
    traceparent: sometimes(
      fc.oneof(
        fc.constant('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'),
        fc.constant('ff-00000000000000000000000000000000-0000000000000000-00'),
        headerValue,
      ),
      5,
    ),
    'x-modelgate-route-key': sometimes(headerValue, 5),
    'x-modelgate-endpoint': sometimes(
      fc.oneof(fc.constantFrom('embedder', 'sentiment', 'ranker', 'writer', 'nope'), headerValue),
      4,
    ),
    'x-user': sometimes(headerValue, 8),
    accept: sometimes(fc.constantFrom('text/event-stream', 'application/json', '*/*', 'image/png'), 6),
    'content-encoding': sometimes(fc.constantFrom('gzip', 'identity', 'br', ''), 30),
  })
  .map((headers) =>
    Object.fromEntries(
      Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
  );

/** A query string, mostly none: no API route reads one. */
export const queryString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constant(''), weight: 40 },
  { arbitrary: fc.constantFrom('?', '?top_k=3', '?a=1&a=2', '?%zz', '?=', '?stream=true#frag'), weight: 2 },
  {
    arbitrary: fc
      .array(fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })), {
        minLength: 1,
        maxLength: 4,
      })
      .map((pairs) => `?${new URLSearchParams(pairs).toString()}`),
    weight: 1,
  },
);

/** A path segment: a known name, or anything, percent-encoded (`%2f`, `..`, NUL included). */
export function segment(known: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...known), weight: 6 },
    { arbitrary: fc.string({ maxLength: 30 }).map(encodeURIComponent), weight: 2 },
    {
      arbitrary: fc.constantFrom('..', '%2e%2e', 'a%2fb', '%00', 'x'.repeat(250), '%C3%28', '1e400'),
      weight: 1,
    },
  );
}

/** `path` as fetch puts it on the wire: dot segments resolved, the fragment dropped. */
export function wirePath(path: string): string {
  const url = new URL(path, 'http://gateway');
  return url.pathname + url.search;
}

/** How fast-check prints a request in a counterexample: the body cut short, not byte by byte. */
function describeRequest(this: FuzzRequest): string {
  const body =
    this.body === undefined
      ? ''
      : ` body(${this.body.length} bytes)=${JSON.stringify(Buffer.from(this.body.subarray(0, 300)).toString('latin1'))}`;
  return `${this.method} ${this.path.slice(0, 300)} headers=${JSON.stringify(this.headers)}${body}`;
}

/** `request`, printed by fast-check as {@link describeRequest} says. */
export function printable(request: FuzzRequest): FuzzRequest {
  return Object.assign(request, { [fc.toStringMethod]: describeRequest });
}

/** Requests of one route family: `method path` + query, the headers, and body bytes of `body`. */
export function requests(
  route: fc.Arbitrary<{ method: string; path: string; body?: fc.Arbitrary<unknown> }>,
  bodyLimit: number,
): fc.Arbitrary<FuzzRequest> {
  return route.chain(({ method, path, body }) =>
    fc
      .record({
        query: queryString,
        headers: hostileHeaders,
        type: contentType,
        // fetch sends no body with GET or HEAD.
        bytes:
          body === undefined || method === 'GET' || method === 'HEAD'
            ? fc.constant(undefined)
            : bodyBytes(body, bodyLimit),
      })
      .map(({ query, headers, type, bytes }) =>
        printable({
          method,
          path: wirePath(path + query),
          headers: type === undefined || bytes === undefined ? headers : { ...headers, 'content-type': type },
          ...(bytes === undefined ? {} : { body: bytes }),
        }),
      ),
  );
}
