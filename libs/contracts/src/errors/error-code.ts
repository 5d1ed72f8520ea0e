/**
 * Every failure modelgate reports, across HTTP and gRPC. A code is the stable, machine-readable
 * part of an error; the message is for people. Adding a code without mapping it in
 * `HTTP_STATUS_BY_CODE` and `GRPC_STATUS_BY_CODE` fails to compile.
 */
export const ErrorCode = {
  /** The request body, a field or a tensor is malformed. */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  /** No credentials were presented, or they are not valid. */
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  /** The credentials are valid but do not allow this action. */
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  /** Unknown endpoint, model, version, job or route. */
  NOT_FOUND: 'NOT_FOUND',
  /** The change conflicts with current state (duplicate name, model still routed, ...). */
  CONFLICT: 'CONFLICT',
  /** The body or the batch is larger than the configured limit. */
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  /** The body is not JSON. */
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  /** The input has more tokens than the limit and truncation is off. */
  TOKEN_LIMIT_EXCEEDED: 'TOKEN_LIMIT_EXCEEDED',
  /** The model's queue is full; retry later. */
  QUEUE_FULL: 'QUEUE_FULL',
  /** The model is known but not loaded (loading, failed, or draining). */
  MODEL_NOT_READY: 'MODEL_NOT_READY',
  /** No worker can take the request, or the server is shutting down. */
  UNAVAILABLE: 'UNAVAILABLE',
  /** The request's deadline passed before it was answered. */
  DEADLINE_EXCEEDED: 'DEADLINE_EXCEEDED',
  /** The caller went away before the answer. */
  CANCELLED: 'CANCELLED',
  /** A bug or an unexpected failure; details are logged, never returned. */
  INTERNAL: 'INTERNAL',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
