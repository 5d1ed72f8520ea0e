import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import {
  ErrorCode,
  apiErrorBodySchema,
  fromFrameworkHttpStatus,
  isModelgateError,
  toHttpStatus,
  type ModelgateError,
} from '@modelgate/contracts';
import { type Logger } from '@modelgate/observability';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isOpenAiPath, toOpenAiErrorBody } from '../openai/openai-errors.js';
import { isTeiPath, toTeiError } from '../tei/tei-errors.js';

/**
 * The JSON error body of every failed request (DESIGN §3.1): the admin API's, less validation
 * issues (the gateway names `field`). The OpenAPI document's error schema is this one.
 */
export const errorBodySchema = z.object({ error: apiErrorBodySchema.shape.error.omit({ issues: true }) });

/** The JSON error body of every failed request. */
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** Maps any error to `{error: {code, message, request_id}}`; never a stack trace. */
export function toErrorResponse(
  error: unknown,
  requestId: string,
  logger?: Logger,
): { status: number; body: ErrorBody; retryAfterSeconds?: number } {
  if (isModelgateError(error)) return fromModelgateError(error, requestId);
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const code = status >= 500 ? ErrorCode.INTERNAL : fromFrameworkHttpStatus(status);
    return {
      status: toHttpStatus(code),
      body: { error: { code, message: httpMessage(error), request_id: requestId } },
    };
  }
  // Fastify's own errors (body parser, body limit, media type) keep their status and message, as
  // Nest's adapter hands them to the filter for its routes (FastifyAdapter.mapException); the
  // serve routes, which are plain Fastify routes, get theirs here unmapped.
  const fastifyStatus = (error as { statusCode?: unknown }).statusCode;
  if (typeof fastifyStatus === 'number' && fastifyStatus >= 400 && fastifyStatus < 500) {
    const code = fromFrameworkHttpStatus(fastifyStatus);
    const message = error instanceof Error ? error.message : 'the request was refused';
    return { status: toHttpStatus(code), body: { error: { code, message, request_id: requestId } } };
  }
  logger?.error({ err: error, requestId }, 'unhandled error');
  return {
    status: 500,
    body: { error: { code: ErrorCode.INTERNAL, message: 'internal error', request_id: requestId } },
  };
}

function fromModelgateError(error: ModelgateError, requestId: string) {
  const body: ErrorBody = { error: { code: error.code, message: error.message, request_id: requestId } };
  if (error.details.field) body.error.field = error.details.field;
  return {
    status: toHttpStatus(error.code),
    body,
    ...(error.details.retryAfterSeconds !== undefined
      ? { retryAfterSeconds: error.details.retryAfterSeconds }
      : {}),
  };
}

function httpMessage(error: HttpException): string {
  const response = error.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  return Array.isArray(message) ? message.join('; ') : typeof message === 'string' ? message : error.message;
}

/**
 * Answers `request` with the error JSON of `error` (and Retry-After when it has one). The Nest
 * filter below and the plain Fastify serve routes (serving/serve-routes.ts) both answer through
 * it, so the gateway has one error table for HTTP whichever layer caught the error.
 */
export function sendErrorReply(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  logger: Logger,
): FastifyReply {
  const { status, body, retryAfterSeconds } = toErrorResponse(error, request.id, logger);
  if (retryAfterSeconds !== undefined) void reply.header('retry-after', String(retryAfterSeconds));
  // Says who answered, so a client aimed at the wrong component can tell (the CLI's hint when
  // given the gateway's URL for the registry's). On errors only: nothing added to the hot path.
  void reply.header('x-modelgate-component', 'gateway');
  // The KServe v2 REST routes answer errors in that protocol's shape, `{"error": "<message>"}`,
  // with the same status; the request id stays in the x-request-id header.
  if (isKserveV2Path(request.url)) return reply.status(status).send({ error: body.error.message });
  // The OpenAI-compatible routes add OpenAI's `type` and `param`, which its clients read.
  if (isOpenAiPath(request.url)) return reply.status(status).send(toOpenAiErrorBody(body, status));
  // The TEI-compatible routes answer TEI's `{error, error_type}` with TEI's status for the type.
  if (isTeiPath(request.url)) {
    const tei = toTeiError(error, body, status);
    return reply.status(tei.status).send(tei.body);
  }
  return reply.status(status).send(body);
}

/** True for `/v2` and everything under `/v2/` (the KServe v2 REST surface). */
export function isKserveV2Path(url: string): boolean {
  return url === '/v2' || url.startsWith('/v2/') || url.startsWith('/v2?');
}

/** The one HTTP filter of the gateway's Nest controllers. */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    void sendErrorReply(
      http.getRequest<FastifyRequest>(),
      http.getResponse<FastifyReply>(),
      exception,
      this.logger,
    );
  }
}
