// The error answers of a route, written from the one code → HTTP status table.
import { type ErrorCode } from '../errors/error-code.js';
import { HTTP_STATUS_BY_CODE } from '../errors/status-tables.js';
import { type ApiBody, type ApiHeader, type ApiResponse } from './openapi-document.js';

/** What a client does about a code, one sentence each: the docs' table of errors. */
const MEANING_BY_CODE = {
  INVALID_ARGUMENT: 'the body or a field is malformed; `field` names it',
  UNAUTHENTICATED: 'no bearer token, or not a valid one',
  PERMISSION_DENIED: 'the token may not do this (a viewer token on a mutation)',
  NOT_FOUND: 'unknown endpoint, model, version, job or route',
  CONFLICT: 'the change conflicts with the current state (a name taken, a model still routed)',
  PAYLOAD_TOO_LARGE: 'the body, a text or the batch is over its limit',
  UNSUPPORTED_MEDIA_TYPE: 'the body is not `application/json`',
  TOKEN_LIMIT_EXCEEDED: 'an input is over the token limit and truncation is off',
  QUEUE_FULL: "the model's queue is full: retry after `Retry-After` seconds",
  MODEL_NOT_READY: 'the model is loading, failed, or draining',
  UNAVAILABLE: 'no ready worker, or the server is shutting down',
  DEADLINE_EXCEEDED: "the request's deadline passed before the answer",
  CANCELLED: 'the client went away before the answer',
  INTERNAL: 'an unexpected failure; the log has it under the request id',
} as const satisfies Record<ErrorCode, string>;

const RETRY_AFTER: ApiHeader = {
  name: 'Retry-After',
  description: 'Seconds to wait before retrying (429 only).',
};

/** The codes that answer with `status`. */
export function codesForStatus(status: number): ErrorCode[] {
  return (Object.keys(HTTP_STATUS_BY_CODE) as ErrorCode[]).filter(
    (code) => HTTP_STATUS_BY_CODE[code] === status,
  );
}

/**
 * Error answers for `statuses`, each describing the codes that answer with it. `example` writes
 * the body of one code, so the examples are in the app's own error shape.
 */
export function errorResponses(
  statuses: readonly number[],
  body: Omit<ApiBody, 'examples'>,
  example: (code: ErrorCode) => unknown,
): Record<string, ApiResponse> {
  return Object.fromEntries(
    statuses.map((status) => {
      const codes = codesForStatus(status);
      if (codes.length === 0) throw new Error(`no error code answers with HTTP ${status}`);
      const description = codes.map((code) => `\`${code}\`: ${MEANING_BY_CODE[code]}`).join('; ');
      const response: ApiResponse = {
        description: `${description}.`,
        body: {
          ...body,
          examples: Object.fromEntries(codes.map((code) => [code, { summary: code, value: example(code) }])),
        },
        ...(status === 429 ? { headers: [RETRY_AFTER] } : {}),
      };
      return [String(status), response];
    }),
  );
}
