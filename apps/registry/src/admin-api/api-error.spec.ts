import { NotFoundException } from '@nestjs/common';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { toApiErrorResponse } from './api-error.js';

describe('toApiErrorResponse', () => {
  it('answers a ModelgateError by its code, with the field and the request id', () => {
    const error = new ModelgateError(ErrorCode.CONFLICT, 'model a:1 is routed', { field: 'version' });
    expect(toApiErrorResponse(error, 'req-1')).toEqual({
      status: 409,
      headers: {},
      expected: true,
      body: {
        error: { code: 'CONFLICT', message: 'model a:1 is routed', request_id: 'req-1', field: 'version' },
      },
    });
  });

  it('asks for a bearer token on 401', () => {
    const response = toApiErrorResponse(new ModelgateError(ErrorCode.UNAUTHENTICATED, 'no token'), 'r');
    expect(response.headers).toEqual({ 'www-authenticate': 'Bearer' });
  });

  it("maps Fastify's and Nest's client errors by status", () => {
    const mediaType = Object.assign(new Error('Unsupported Media Type: text/plain'), { statusCode: 415 });
    expect(toApiErrorResponse(mediaType, 'r').body.error).toEqual({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'request bodies must be application/json',
      request_id: 'r',
    });
    const tooLarge = Object.assign(new Error('request file too large'), { statusCode: 413 });
    expect(toApiErrorResponse(tooLarge, 'r').status).toBe(413);
    expect(toApiErrorResponse(new NotFoundException('Cannot GET /x'), 'r').body.error.code).toBe('NOT_FOUND');
  });

  it('hides everything about unknown errors behind a 500', () => {
    const response = toApiErrorResponse(
      new TypeError('cannot read properties of undefined (secret path)'),
      'r',
    );
    expect(response).toMatchObject({ status: 500, expected: false });
    expect(response.body.error).toEqual({ code: 'INTERNAL', message: 'internal error', request_id: 'r' });
  });
});
