import { describe, expect, it } from 'vitest';
import { ErrorCode } from './error-code.js';
import { ModelgateError, isModelgateError } from './modelgate-error.js';
import {
  CODE_BY_GRPC_STATUS,
  FAILURE_REASON_BY_CODE,
  FailureReason,
  GRPC_STATUS_BY_CODE,
  GrpcStatus,
  HTTP_STATUS_BY_CODE,
  fromFrameworkHttpStatus,
  fromGrpcStatus,
  toFailureReason,
  toGrpcStatus,
  toHttpStatus,
} from './status-tables.js';

const ALL_CODES = Object.values(ErrorCode);
const ALL_GRPC_STATUSES = Object.values(GrpcStatus);

/** Codes that survive a trip to a gRPC status and back unchanged. */
const ONE_TO_ONE: ErrorCode[] = [
  'INVALID_ARGUMENT',
  'UNAUTHENTICATED',
  'PERMISSION_DENIED',
  'NOT_FOUND',
  'CONFLICT',
  'QUEUE_FULL',
  'UNAVAILABLE',
  'DEADLINE_EXCEEDED',
  'CANCELLED',
  'INTERNAL',
];

describe('status tables', () => {
  it('map every error code to an HTTP error status', () => {
    expect(Object.keys(HTTP_STATUS_BY_CODE).sort()).toEqual([...ALL_CODES].sort());
    for (const code of ALL_CODES) {
      expect(toHttpStatus(code)).toBeGreaterThanOrEqual(400);
      expect(toHttpStatus(code)).toBeLessThan(600);
    }
  });

  it('map every error code to a non-OK gRPC status', () => {
    expect(Object.keys(GRPC_STATUS_BY_CODE).sort()).toEqual([...ALL_CODES].sort());
    for (const code of ALL_CODES) {
      expect(ALL_GRPC_STATUSES).toContain(toGrpcStatus(code));
      expect(toGrpcStatus(code)).not.toBe(GrpcStatus.OK);
    }
  });

  it('map every gRPC status to an error code', () => {
    expect(
      Object.keys(CODE_BY_GRPC_STATUS)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual(ALL_GRPC_STATUSES);
    for (const status of ALL_GRPC_STATUSES) expect(ALL_CODES).toContain(fromGrpcStatus(status));
  });

  it.each(ONE_TO_ONE)('round-trips %s through its gRPC status', (code) => {
    expect(fromGrpcStatus(toGrpcStatus(code))).toBe(code);
  });

  it.each([
    ['PAYLOAD_TOO_LARGE', 'QUEUE_FULL'],
    ['UNSUPPORTED_MEDIA_TYPE', 'INVALID_ARGUMENT'],
    ['TOKEN_LIMIT_EXCEEDED', 'INVALID_ARGUMENT'],
    ['MODEL_NOT_READY', 'UNAVAILABLE'],
  ] as const)('folds %s into %s on the way back, with the same HTTP family', (code, back) => {
    expect(fromGrpcStatus(toGrpcStatus(code))).toBe(back);
    expect(Math.floor(toHttpStatus(back) / 100)).toBe(Math.floor(toHttpStatus(code) / 100));
  });

  it('lists every code as either one-to-one or folded', () => {
    const folded = ALL_CODES.filter((code) => fromGrpcStatus(toGrpcStatus(code)) !== code);
    expect([...ONE_TO_ONE, ...folded].sort()).toEqual([...ALL_CODES].sort());
  });

  it('answers the statuses DESIGN promises for worker failures', () => {
    expect(toGrpcStatus('QUEUE_FULL')).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect(toHttpStatus('QUEUE_FULL')).toBe(429);
    expect(toGrpcStatus('DEADLINE_EXCEEDED')).toBe(GrpcStatus.DEADLINE_EXCEEDED);
    expect(toHttpStatus('DEADLINE_EXCEEDED')).toBe(504);
    expect(toGrpcStatus('MODEL_NOT_READY')).toBe(GrpcStatus.UNAVAILABLE);
    expect(toHttpStatus('MODEL_NOT_READY')).toBe(503);
  });

  it('counts every error code under one failure reason, and every reason has a code', () => {
    expect(Object.keys(FAILURE_REASON_BY_CODE).sort()).toEqual([...ALL_CODES].sort());
    expect(new Set(ALL_CODES.map(toFailureReason))).toEqual(new Set(Object.values(FailureReason)));
  });

  it('names a full queue REJECTED and a caller gone CANCELED, as Triton does', () => {
    expect(toFailureReason('QUEUE_FULL')).toBe('REJECTED');
    expect(toFailureReason('CANCELLED')).toBe('CANCELED');
    expect(toFailureReason('DEADLINE_EXCEEDED')).toBe('TIMEOUT');
    expect(toFailureReason('TOKEN_LIMIT_EXCEEDED')).toBe('INVALID_INPUT');
  });

  it("reads a framework's 4xx as the code whose own status is the one answered", () => {
    for (const status of [400, 401, 403, 404, 409, 413, 415]) {
      expect(toHttpStatus(fromFrameworkHttpStatus(status))).toBe(status);
    }
    // A wrong method on a known path is a route that does not exist: 404 NOT_FOUND, never a
    // 405 that carries NOT_FOUND.
    expect(fromFrameworkHttpStatus(405)).toBe('NOT_FOUND');
    expect(fromFrameworkHttpStatus(408)).toBe('INVALID_ARGUMENT');
    expect(fromFrameworkHttpStatus(431)).toBe('INVALID_ARGUMENT');
  });

  it('reads an unknown gRPC status number as INTERNAL', () => {
    expect(fromGrpcStatus(99)).toBe('INTERNAL');
    expect(fromGrpcStatus(-1)).toBe('INTERNAL');
  });
});

describe('isModelgateError', () => {
  it('recognises the class and look-alikes from another copy of the module', () => {
    expect(isModelgateError(new ModelgateError('NOT_FOUND', 'no such endpoint'))).toBe(true);
    const copy = Object.assign(new Error('x'), { name: 'ModelgateError', code: 'NOT_FOUND' });
    expect(isModelgateError(copy)).toBe(true);
    expect(isModelgateError(new Error('plain'))).toBe(false);
  });
});
