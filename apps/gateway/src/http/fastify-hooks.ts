import { ErrorCode, toHttpStatus } from '@modelgate/contracts';
import { type Logger, resolveRequestId } from '@modelgate/observability';
import { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { isOpenAiPath, toOpenAiErrorBody } from '../openai/openai-errors.js';
import { isKserveV2Path } from './http-exception.filter.js';
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

/**
 * Hooks the gateway needs before Nest sees a request: 415 for bodies that are not JSON (Fastify
 * would parse text/plain), except image bodies on the serve routes (http/image-body.ts), the
 * x-request-id header on every answer, and one log line per request (with OpenAI's `user`, when given).
 */
export function installFastifyHooks(fastify: FastifyInstance, logger: Logger): void {
  installImageBodyParser(fastify);
  // Callback style, not async: runs on every request, and a promise per hook is measurable there.
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    void reply.header('x-request-id', request.id);
    const type = request.headers['content-type'];
    if (
      request.method !== 'POST' ||
      (type !== undefined && (JSON_CONTENT_TYPE.test(type) || takesImageBody(request.url, type)))
    ) {
      done();
      return;
    }
    // Answering ends the request here: Fastify skips the rest when a hook sends without `done`.
    const message = `the body must be JSON (content-type: application/json), not ${type ?? 'unspecified'}`;
    const code = ErrorCode.UNSUPPORTED_MEDIA_TYPE;
    const status = toHttpStatus(code);
    const body = { error: { code, message, request_id: request.id } };
    void reply
      .status(status)
      .send(
        isKserveV2Path(request.url)
          ? { error: message }
          : isOpenAiPath(request.url)
            ? toOpenAiErrorBody(body, status)
            : body,
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
