import { ErrorCode } from './error-code.js';

/** gRPC status codes (grpc/grpc doc/statuscodes.md), kept here so contracts stay dependency-free. */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

export type GrpcStatus = (typeof GrpcStatus)[keyof typeof GrpcStatus];

/** The HTTP status each code answers with (DESIGN §3.1). */
export const HTTP_STATUS_BY_CODE = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOKEN_LIMIT_EXCEEDED: 422,
  QUEUE_FULL: 429,
  MODEL_NOT_READY: 503,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
  CANCELLED: 499,
  INTERNAL: 500,
} as const satisfies Record<ErrorCode, number>;

/** The gRPC status each code answers with (DESIGN §3.2). */
export const GRPC_STATUS_BY_CODE = {
  INVALID_ARGUMENT: GrpcStatus.INVALID_ARGUMENT,
  UNAUTHENTICATED: GrpcStatus.UNAUTHENTICATED,
  PERMISSION_DENIED: GrpcStatus.PERMISSION_DENIED,
  NOT_FOUND: GrpcStatus.NOT_FOUND,
  CONFLICT: GrpcStatus.ALREADY_EXISTS,
  PAYLOAD_TOO_LARGE: GrpcStatus.RESOURCE_EXHAUSTED,
  UNSUPPORTED_MEDIA_TYPE: GrpcStatus.INVALID_ARGUMENT,
  TOKEN_LIMIT_EXCEEDED: GrpcStatus.INVALID_ARGUMENT,
  QUEUE_FULL: GrpcStatus.RESOURCE_EXHAUSTED,
  MODEL_NOT_READY: GrpcStatus.UNAVAILABLE,
  UNAVAILABLE: GrpcStatus.UNAVAILABLE,
  DEADLINE_EXCEEDED: GrpcStatus.DEADLINE_EXCEEDED,
  CANCELLED: GrpcStatus.CANCELLED,
  INTERNAL: GrpcStatus.INTERNAL,
} as const satisfies Record<ErrorCode, GrpcStatus>;

/**
 * The code a gRPC status from a worker (ours or a Triton server) means to the gateway.
 * RESOURCE_EXHAUSTED from a worker is always a full queue.
 */
export const CODE_BY_GRPC_STATUS = {
  [GrpcStatus.OK]: ErrorCode.INTERNAL,
  [GrpcStatus.CANCELLED]: ErrorCode.CANCELLED,
  [GrpcStatus.UNKNOWN]: ErrorCode.INTERNAL,
  [GrpcStatus.INVALID_ARGUMENT]: ErrorCode.INVALID_ARGUMENT,
  [GrpcStatus.DEADLINE_EXCEEDED]: ErrorCode.DEADLINE_EXCEEDED,
  [GrpcStatus.NOT_FOUND]: ErrorCode.NOT_FOUND,
  [GrpcStatus.ALREADY_EXISTS]: ErrorCode.CONFLICT,
  [GrpcStatus.PERMISSION_DENIED]: ErrorCode.PERMISSION_DENIED,
  [GrpcStatus.RESOURCE_EXHAUSTED]: ErrorCode.QUEUE_FULL,
  [GrpcStatus.FAILED_PRECONDITION]: ErrorCode.MODEL_NOT_READY,
  [GrpcStatus.ABORTED]: ErrorCode.UNAVAILABLE,
  [GrpcStatus.OUT_OF_RANGE]: ErrorCode.INVALID_ARGUMENT,
  [GrpcStatus.UNIMPLEMENTED]: ErrorCode.INTERNAL,
  [GrpcStatus.INTERNAL]: ErrorCode.INTERNAL,
  [GrpcStatus.UNAVAILABLE]: ErrorCode.UNAVAILABLE,
  [GrpcStatus.DATA_LOSS]: ErrorCode.INTERNAL,
  [GrpcStatus.UNAUTHENTICATED]: ErrorCode.UNAUTHENTICATED,
} as const satisfies Record<GrpcStatus, ErrorCode>;

/**
 * The code for a client error the HTTP framework raises itself (no such route, a body that is not
 * JSON or too large, an unsupported media type). A wrong method on a known path is a route that
 * does not exist; any other 4xx is a bad request. Both HTTP servers answer the code's own status.
 */
const CODE_BY_FRAMEWORK_HTTP_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: ErrorCode.INVALID_ARGUMENT,
  401: ErrorCode.UNAUTHENTICATED,
  403: ErrorCode.PERMISSION_DENIED,
  404: ErrorCode.NOT_FOUND,
  405: ErrorCode.NOT_FOUND,
  409: ErrorCode.CONFLICT,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
};

/** The code for a framework's 4xx status (see CODE_BY_FRAMEWORK_HTTP_STATUS); other 4xx are INVALID_ARGUMENT. */
export function fromFrameworkHttpStatus(status: number): ErrorCode {
  return CODE_BY_FRAMEWORK_HTTP_STATUS[status] ?? ErrorCode.INVALID_ARGUMENT;
}

/**
 * Why a request failed, as the `reason` label of the failure counters (after Triton's
 * `nv_inference_request_failure{reason}`): a small closed set, so dashboards and alerts can name
 * every value. REJECTED is a full queue, CANCELED a caller that went away (Triton's spelling).
 */
export const FailureReason = {
  INVALID_INPUT: 'INVALID_INPUT',
  UNAUTHORIZED: 'UNAUTHORIZED',
  NOT_FOUND: 'NOT_FOUND',
  REJECTED: 'REJECTED',
  UNAVAILABLE: 'UNAVAILABLE',
  TIMEOUT: 'TIMEOUT',
  CANCELED: 'CANCELED',
  INTERNAL: 'INTERNAL',
} as const;

export type FailureReason = (typeof FailureReason)[keyof typeof FailureReason];

/** The failure reason each code is counted under, on every transport. */
export const FAILURE_REASON_BY_CODE = {
  INVALID_ARGUMENT: FailureReason.INVALID_INPUT,
  UNAUTHENTICATED: FailureReason.UNAUTHORIZED,
  PERMISSION_DENIED: FailureReason.UNAUTHORIZED,
  NOT_FOUND: FailureReason.NOT_FOUND,
  CONFLICT: FailureReason.INVALID_INPUT,
  PAYLOAD_TOO_LARGE: FailureReason.INVALID_INPUT,
  UNSUPPORTED_MEDIA_TYPE: FailureReason.INVALID_INPUT,
  TOKEN_LIMIT_EXCEEDED: FailureReason.INVALID_INPUT,
  QUEUE_FULL: FailureReason.REJECTED,
  MODEL_NOT_READY: FailureReason.UNAVAILABLE,
  UNAVAILABLE: FailureReason.UNAVAILABLE,
  DEADLINE_EXCEEDED: FailureReason.TIMEOUT,
  CANCELLED: FailureReason.CANCELED,
  INTERNAL: FailureReason.INTERNAL,
} as const satisfies Record<ErrorCode, FailureReason>;

/** The HTTP status for a code. */
export function toHttpStatus(code: ErrorCode): number {
  return HTTP_STATUS_BY_CODE[code];
}

/** The gRPC status for a code. */
export function toGrpcStatus(code: ErrorCode): GrpcStatus {
  return GRPC_STATUS_BY_CODE[code];
}

/** The code for a gRPC status number; unknown numbers are INTERNAL. */
export function fromGrpcStatus(status: number): ErrorCode {
  return (CODE_BY_GRPC_STATUS as Record<number, ErrorCode>)[status] ?? ErrorCode.INTERNAL;
}

/** The failure reason a code is counted under (the `reason` label). */
export function toFailureReason(code: ErrorCode): FailureReason {
  return FAILURE_REASON_BY_CODE[code];
}
