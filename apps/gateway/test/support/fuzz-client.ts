// Sends fuzzed requests to a gateway and judges each answer: no 5xx, an answer at all, and every
// 4xx in the error shape of its route family. The shapes are written here from the protocols, not
// imported from the gateway, so a route answering in the wrong family's shape is caught.
import { connect } from 'node:net';
import { ErrorCode } from '@modelgate/contracts';
import { z } from 'zod';
import { type FuzzRequest } from './hostile-inputs.js';

/** The route families, each with its own error shape. */
export type RouteFamily = 'modelgate' | 'openai' | 'kserve' | 'tei';

const TEI_PATHS = new Set(['/embed', '/embed_all', '/rerank', '/predict', '/tokenize', '/decode', '/info']);

/** The family of the route a (raw, as sent) request path falls under. */
export function familyOf(path: string): RouteFamily {
  const pathname = path.split(/[?#]/, 1)[0] ?? '';
  if (pathname === '/v2' || pathname.startsWith('/v2/')) return 'kserve';
  if (pathname.startsWith('/v1/')) return 'openai';
  if (TEI_PATHS.has(pathname)) return 'tei';
  return 'modelgate';
}

const code = z.enum(Object.values(ErrorCode) as [string, ...string[]]);

/** `/serve`, `/jobs`, probes and everything else: `{error: {code, message, request_id, field?}}`. */
const modelgateError = z.strictObject({
  error: z.strictObject({
    code,
    message: z.string().min(1),
    request_id: z.string().min(1),
    field: z.string().optional(),
  }),
});
/** OpenAI's `{error: {message, type, param, code}}`, with the gateway's request id kept. */
const openAiError = z.strictObject({
  error: z.strictObject({
    code,
    message: z.string().min(1),
    type: z.enum(['invalid_request_error', 'authentication_error', 'permission_error', 'rate_limit_error']),
    param: z.string().nullable(),
    request_id: z.string().min(1),
    field: z.string().optional(),
  }),
});
/** KServe v2 REST: `{error: "<message>"}`. */
const kserveError = z.strictObject({ error: z.string().min(1) });
/** Text Embeddings Inference: `{error, error_type}`. */
const teiError = z.strictObject({
  error: z.string().min(1),
  error_type: z.enum(['Unhealthy', 'Backend', 'Overloaded', 'Validation', 'Tokenizer', 'Empty']),
});
const ERROR_SHAPES = { modelgate: modelgateError, openai: openAiError, kserve: kserveError, tei: teiError };

/** An answer as far as the judging needs it. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What is wrong with `answer` to `request`, or undefined when nothing is. */
export function answerProblem(request: FuzzRequest, answer: Answer): string | undefined {
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.body.slice(0, 300)}`;
  if (answer.status < 400 || request.method === 'HEAD') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    return `answered ${answer.status} with a body that is not JSON: ${answer.body.slice(0, 300)}`;
  }
  const family = familyOf(request.path);
  const shape = ERROR_SHAPES[family].safeParse(parsed);
  if (!shape.success) {
    return `answered ${answer.status} outside the ${family} error shape (${shape.error.issues
      .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      .join('; ')}): ${answer.body.slice(0, 300)}`;
  }
  const id = (parsed as { error: { request_id?: unknown } }).error.request_id;
  if (id !== undefined && id !== answer.headers['x-request-id']) {
    return `answered request_id ${JSON.stringify(id)} but x-request-id ${answer.headers['x-request-id']}`;
  }
  return undefined;
}

/** Sends `request` with fetch; an error thrown is the connection's failure (no answer). */
export async function send(baseUrl: string, request: FuzzRequest): Promise<Answer> {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
    redirect: 'manual',
  });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  };
}

/**
 * Sends `bytes` (a whole request, framing included; it should say `connection: close`) on a new
 * connection, for what fetch will not send: spaces, NUL or non-ASCII bytes in the path or a
 * header, chunked or contradictory framing. Resolves with the first answer once the server closes.
 */
export function sendRaw(port: number, bytes: Uint8Array): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A server that refuses a request while it is still arriving may reset the connection after
    // answering: the answer, when it came, is what counts.
    socket.on('error', (error) => {
      if (chunks.length === 0) reject(error);
    });
    socket.on('close', () => {
      if (chunks.length === 0) {
        reject(new Error('the server closed the connection without an answer'));
        return;
      }
      // latin1: one char per byte, so chunk sizes count chars; the body is decoded as UTF-8 after.
      // Interim answers (100 Continue to `expect: 100-continue`) come first: the final one counts.
      const text = Buffer.concat(chunks)
        .toString('latin1')
        .replace(/^(HTTP\/1\.1 1\d\d[^\r]*\r\n(?:[^\r]+\r\n)*\r\n)+/, '');
      const [headText = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = headText.split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]);
      if (!Number.isInteger(status)) {
        reject(new Error(`no status line in ${JSON.stringify(text.slice(0, 200))}`));
        return;
      }
      const headers = Object.fromEntries(
        lines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
        }),
      );
      const payload = rest.join('\r\n\r\n');
      const bytes = headers['transfer-encoding'] === 'chunked' ? unchunk(payload) : payload;
      resolve({ status, headers, body: Buffer.from(bytes, 'latin1').toString('utf8') });
    });
  });
}

/** The payload of a chunked body. */
function unchunk(text: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const lineEnd = text.indexOf('\r\n', at);
    const size = parseInt(text.slice(at, lineEnd), 16);
    if (lineEnd < 0 || !(size > 0)) return out;
    out += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}
