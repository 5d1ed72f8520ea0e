import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type Logger, resolveRequestId } from '@modelgate/observability';
import { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { sendErrorReply } from './http-exception.filter.js';
import { endUserOf } from './end-user.js';
import { installImageBodyParser, takesImageBody } from './image-body.js';

/** JSON media types: application/json and any +json suffix. */
const JSON_CONTENT_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

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
  // Callback style, not async: runs on every request, and a promise per hook is measurable there.
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    void reply.header('x-request-id', request.id);
    const query = refusedQuery(request.url);
    if (query !== undefined) {
      void sendErrorReply(request, reply, new ModelgateError(ErrorCode.INVALID_ARGUMENT, query), logger);
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
