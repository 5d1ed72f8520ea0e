import { MethodNotAllowedException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { ErrorCode, ModelgateError, toHttpStatus } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { toErrorResponse } from './http-exception.filter.js';

/** A Fastify-style error: a plain Error carrying its status, as the body parser and router throw. */
function fastifyError(statusCode: number, message: string): Error {
  return Object.assign(new Error(message), { statusCode });
}

describe('toErrorResponse', () => {
  it('answers a ModelgateError with its code, status and field', () => {
    const error = new ModelgateError(ErrorCode.QUEUE_FULL, 'queue full', {
      field: 'inputs',
      retryAfterSeconds: 1,
    });
    expect(toErrorResponse(error, 'r1')).toEqual({
      status: 429,
      body: { error: { code: 'QUEUE_FULL', message: 'queue full', request_id: 'r1', field: 'inputs' } },
      retryAfterSeconds: 1,
    });
  });

  it("answers the framework's own errors with a code whose status is the one sent", () => {
    const cases: [unknown, ErrorCode][] = [
      [new NotFoundException('Cannot GET /nowhere'), ErrorCode.NOT_FOUND],
      [new PayloadTooLargeException(), ErrorCode.PAYLOAD_TOO_LARGE],
      [fastifyError(400, 'Unexpected end of JSON input'), ErrorCode.INVALID_ARGUMENT],
      [fastifyError(415, 'Unsupported Media Type'), ErrorCode.UNSUPPORTED_MEDIA_TYPE],
      // Neither a 405 that says NOT_FOUND nor a 408 that says INVALID_ARGUMENT: code and status agree.
      [new MethodNotAllowedException(), ErrorCode.NOT_FOUND],
      [fastifyError(405, 'Method Not Allowed'), ErrorCode.NOT_FOUND],
      [fastifyError(408, 'Request Timeout'), ErrorCode.INVALID_ARGUMENT],
    ];
    for (const [error, code] of cases) {
      const response = toErrorResponse(error, 'r2');
      expect(response.body.error.code).toBe(code);
      expect(response.status).toBe(toHttpStatus(code));
      expect(response.body.error.request_id).toBe('r2');
    }
  });

  it('answers anything else with a 500 that says nothing of it', () => {
    const response = toErrorResponse(new TypeError('secret detail at /srv/x.js:1'), 'r3');
    expect(response).toEqual({
      status: 500,
      body: { error: { code: 'INTERNAL', message: 'internal error', request_id: 'r3' } },
    });
  });
});
