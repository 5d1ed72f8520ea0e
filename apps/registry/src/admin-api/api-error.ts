import { HttpException } from '@nestjs/common';
import {
  type ApiErrorBody,
  ErrorCode,
  fromFrameworkHttpStatus,
  isModelgateError,
  type ModelgateErrorDetails,
  toHttpStatus,
} from '@modelgate/contracts';
import { isDatabaseUnavailable } from './database-unavailable.js';

/** An error as the admin API answers it. `expected` is false for errors that deserve a log line with a stack. */
export interface ApiErrorResponse {
  status: number;
  body: ApiErrorBody;
  headers: Record<string, string>;
  expected: boolean;
}

/**
 * Maps anything thrown while serving a request to the error envelope: ModelgateError by its code,
 * Nest's HttpException and Fastify's own 4xx errors (bad JSON, unsupported media type, file too
 * large, no such route) by their status, a lost database to 503 UNAVAILABLE, and everything else
 * to a 500 that says nothing more.
 */
export function toApiErrorResponse(exception: unknown, requestId: string): ApiErrorResponse {
  const headers: Record<string, string> = {};
  if (isModelgateError(exception)) {
    const details: ModelgateErrorDetails = exception.details;
    if (exception.code === ErrorCode.UNAUTHENTICATED) headers['www-authenticate'] = 'Bearer';
    if (details.retryAfterSeconds !== undefined) headers['retry-after'] = String(details.retryAfterSeconds);
    return {
      status: toHttpStatus(exception.code),
      headers,
      expected: exception.code !== ErrorCode.INTERNAL,
      body: {
        error: {
          code: exception.code,
          message: exception.message,
          request_id: requestId,
          ...(details.field === undefined ? {} : { field: details.field }),
          ...(details.issues === undefined ? {} : { issues: details.issues }),
        },
      },
    };
  }
  const clientStatus = clientErrorStatus(exception);
  if (clientStatus !== undefined) {
    const code = fromFrameworkHttpStatus(clientStatus);
    return {
      status: toHttpStatus(code),
      headers,
      expected: true,
      body: { error: { code, message: clientErrorMessage(exception, code), request_id: requestId } },
    };
  }
  if (isDatabaseUnavailable(exception)) {
    headers['retry-after'] = String(DATABASE_RETRY_AFTER_SECONDS);
    return {
      status: toHttpStatus(ErrorCode.UNAVAILABLE),
      headers,
      expected: true,
      body: {
        error: {
          code: ErrorCode.UNAVAILABLE,
          message:
            "the registry's database is unavailable; retry shortly (serving goes on from the last config)",
          request_id: requestId,
        },
      },
    };
  }
  return {
    status: 500,
    headers,
    expected: false,
    body: { error: { code: ErrorCode.INTERNAL, message: 'internal error', request_id: requestId } },
  };
}

/** Retry-After of a 503 for a lost database, in seconds. */
const DATABASE_RETRY_AFTER_SECONDS = 2;

function clientErrorStatus(exception: unknown): number | undefined {
  const status =
    exception instanceof HttpException
      ? exception.getStatus()
      : exception instanceof Error
        ? (exception as { statusCode?: unknown }).statusCode
        : undefined;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

function clientErrorMessage(exception: unknown, code: ErrorCode): string {
  if (code === ErrorCode.UNSUPPORTED_MEDIA_TYPE) return 'request bodies must be application/json';
  return exception instanceof Error ? exception.message : 'bad request';
}
