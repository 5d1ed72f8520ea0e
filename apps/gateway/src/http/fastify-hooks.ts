import { type Duplex } from 'node:stream';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type Logger, resolveRequestId } from '@modelgate/observability';
import { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { sendErrorReply } from './http-exception.filter.js';
import { endUserOf } from './end-user.js';
import { installImageBodyParser, takesImageBody } from './image-body.js';

/** JSON media types: application/json and any +json suffix. */
const JSON_CONTENT_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

/** A `charset` parameter of a content type, when it names one other than UTF-8. */
function foreignCharset(type: string): string | undefined {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(type)?.[1];
  return charset === undefined || /^utf-?8$/i.test(charset) ? undefined : charset;
}

/** Decodes a body as UTF-8, refusing bytes that are not (they were replaced, and the model read other text). */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Why a request's body cannot be read as sent: a content encoding (gzip: it was parsed as JSON
 * and refused as "not valid JSON"), or a charset other than UTF-8 (its bytes were read as UTF-8).
 */
export function refusedBodyEncoding(headers: FastifyRequest['headers']): string | undefined {
  const encoding = headers['content-encoding']?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
    return `content-encoding ${encoding} is not supported: send the body uncompressed`;
  }
  const type = headers['content-type'];
  const charset = type === undefined ? undefined : foreignCharset(type);
  return charset === undefined ? undefined : `charset ${charset} is not supported: send the body in UTF-8`;
}

/**
 * The JSON body parser of every route (application/json and +json types): strict UTF-8, then
 * Fastify's own parser, which refuses `__proto__` and `constructor.prototype` keys; each failure
 * a 400 that says which.
 */
function installJsonParser(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser(JSON_CONTENT_TYPE, { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = STRICT_UTF8.decode(body as Buffer);
    } catch {
      done(new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'the body is not valid UTF-8'), undefined);
      return;
    }
    if (text.trim() === '') {
      done(
        new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'the body is empty: send a JSON object'),
        undefined,
      );
      return;
    }
    void parseJson(request, text, (error, value) => {
      if (error === null) {
        done(null, value);
        return;
      }
      // Fastify says only "not valid JSON"; JSON.parse tells a forbidden key (it parses) from a syntax error.
      let message = 'the body holds a forbidden key (__proto__ or constructor.prototype)';
      try {
        JSON.parse(text);
      } catch (syntax) {
        message = `the body is not valid JSON (${(syntax as Error).message})`;
      }
      done(new ModelgateError(ErrorCode.INVALID_ARGUMENT, message), undefined);
    });
  });
}

/**
 * Fastify options that answer what Fastify or Node refuse before any route runs (a malformed
 * percent-encoding, a path parameter too long, bytes that are not HTTP) in the gateway's error
 * shape, with a request id, as every other refusal: Fastify answered its own bodies.
 */
export function frameworkErrorOptions(logger: Logger) {
  return {
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply): void => {
      void reply.header('x-request-id', request.id);
      void sendErrorReply(request, reply, error, logger);
    },
    clientErrorHandler: (error: Error & { code?: string }, socket: Duplex): void => {
      // A response already under way on this connection (a stream) gets no second status line.
      const responding = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
      if (error.code === 'ECONNRESET' || !socket.writable || responding === true) {
        socket.destroy();
        return;
      }
      const { status, code, message } = clientErrorAnswer(error.code);
      const requestId = resolveRequestId(undefined);
      const body = JSON.stringify({ error: { code, message, request_id: requestId } });
      socket.end(
        `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
  };
}

/**
 * Fastify and Node server options that bound how long a client may hold a connection without
 * using it: to send a request's headers (`headersTimeout`) and all of it (`requestTimeout`), past
 * either of which Node refuses it with ERR_HTTP_REQUEST_TIMEOUT, answered 408 by
 * clientErrorHandler, and closes the connection (Node checks every `connectionsCheckingInterval`,
 * 30 s by default, far coarser than the timeouts); and idle between requests (`keepAliveTimeout`),
 * past which the connection is closed.
 */
export function connectionTimeoutOptions(limits: {
  GATEWAY_HEADERS_TIMEOUT_MS: number;
  GATEWAY_RECEIVE_TIMEOUT_MS: number;
  GATEWAY_KEEP_ALIVE_TIMEOUT_MS: number;
}) {
  const headersTimeout = limits.GATEWAY_HEADERS_TIMEOUT_MS;
  return {
    requestTimeout: limits.GATEWAY_RECEIVE_TIMEOUT_MS,
    keepAliveTimeout: limits.GATEWAY_KEEP_ALIVE_TIMEOUT_MS,
    http: {
      headersTimeout,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
  };
}

/** What Node's HTTP parser refused, as the status line and error of the answer. */
function clientErrorAnswer(code: string | undefined): { status: string; code: ErrorCode; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: '431 Request Header Fields Too Large',
      code: ErrorCode.PAYLOAD_TOO_LARGE,
      message: "the request's headers are too large",
    };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: '408 Request Timeout',
      code: ErrorCode.DEADLINE_EXCEEDED,
      message: 'the request did not arrive in time',
    };
  }
  return {
    status: '400 Bad Request',
    code: ErrorCode.INVALID_ARGUMENT,
    message: `the request is not valid HTTP (${code ?? 'unreadable request'})`,
  };
}

/** Fastify options that give every request our request id (validated client id or a UUID). */
export const requestIdOptions = {
  requestIdHeader: false as const,
  genReqId: (request: { headers: Record<string, string | string[] | undefined> }): string =>
    resolveRequestId(request.headers['x-request-id']),
};

/** The API's paths: /serve, /v2 (KServe), /v1 (OpenAI) and /jobs, none of which reads a query. */
const API_PATH = /^\/(serve|v2|v1|jobs)(\/|\?|$)/;

/**
 * Why `url` may not be served as sent: a query string on an API path, which no route reads (it
 * was dropped: `/serve/x?top_k=3` answered as without it). Probes, /metrics and /docs are left alone.
 */
export function refusedQuery(url: string): string | undefined {
  const at = url.indexOf('?');
  if (at < 0 || !API_PATH.test(url)) return undefined;
  const names = [...new URLSearchParams(url.slice(at + 1)).keys()];
  if (names.length === 0) return undefined;
  const path = url.slice(0, at);
  return `${path} takes no query parameters; leave out ${[...new Set(names)].map((n) => `'${n}'`).join(', ')}`;
}

/**
 * Hooks the gateway needs before Nest sees a request: 400 for a query string on an API path,
 * 415 for bodies that are not JSON (Fastify would parse text/plain), except image bodies on the
 * serve routes (http/image-body.ts), the x-request-id header on every answer, and one log line
 * per request (with OpenAI's `user`, when given).
 */
export function installFastifyHooks(fastify: FastifyInstance, logger: Logger): void {
  installImageBodyParser(fastify);
  installJsonParser(fastify);
  // Callback style, not async: runs on every request, and a promise per hook is measurable there.
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    void reply.header('x-request-id', request.id);
    const query = refusedQuery(request.url);
    if (query !== undefined) {
      void sendErrorReply(request, reply, new ModelgateError(ErrorCode.INVALID_ARGUMENT, query), logger);
      return;
    }
    const encoding = request.method === 'POST' ? refusedBodyEncoding(request.headers) : undefined;
    if (encoding !== undefined) {
      void sendErrorReply(
        request,
        reply,
        new ModelgateError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, encoding),
        logger,
      );
      return;
    }
    const type = request.headers['content-type'];
    if (
      request.method !== 'POST' ||
      (type !== undefined && (JSON_CONTENT_TYPE.test(type) || takesImageBody(request.url, type)))
    ) {
      done();
      return;
    }
    const message = `the body must be JSON (content-type: application/json), not ${type ?? 'unspecified'}`;
    // Answering ends the request here: Fastify skips the rest when a hook sends without `done`.
    void sendErrorReply(
      request,
      reply,
      new ModelgateError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, message),
      logger,
    );
  });
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    // The level check first: the log record is built per request even when the level drops it.
    if (logger.isLevelEnabled('info')) {
      const user = endUserOf(request);
      logger.info(
        {
          reqId: request.id,
          method: request.method,
          url: request.url,
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 100) / 100,
          ...(user === undefined ? {} : { user }),
        },
        'request',
      );
    }
    done();
  });
}
