import { ErrorCode, GrpcStatus, ModelgateError, fromGrpcStatus } from '@modelgate/contracts';

/** Seconds a client is told to wait after a full queue (HTTP Retry-After). */
export const QUEUE_FULL_RETRY_AFTER_SECONDS = 1;

/**
 * True for the one status worth a retry on another worker: UNAVAILABLE, which is both what the
 * channel reports for a connection refused, reset or dropped before the answer, and what a
 * worker answers while its model is not loaded or it is draining. Never DEADLINE_EXCEEDED (the
 * time is spent), INVALID_ARGUMENT (it would fail anywhere) or RESOURCE_EXHAUSTED (a full queue
 * is back-pressure, surfaced as 429).
 */
export function isRetryableStatus(status: number): boolean {
  return status === GrpcStatus.UNAVAILABLE;
}

/** True for failures that count toward ejecting the worker (the same set: it did not serve). */
export function isWorkerFailureStatus(status: number): boolean {
  return status === GrpcStatus.UNAVAILABLE;
}

/**
 * The ModelgateError for a failed worker call: the code through `fromGrpcStatus`, the worker's
 * message (or a plain one when it sent none), and for QUEUE_FULL a Retry-After of one second.
 */
export function workerCallToModelgateError(
  status: number,
  details: string,
  model: string,
  cause?: unknown,
): ModelgateError {
  if (status === GrpcStatus.RESOURCE_EXHAUSTED && MESSAGE_SIZE_LIMIT.test(details)) {
    // Not back-pressure: the same message fails again whenever it is retried.
    return new ModelgateError(
      ErrorCode.PAYLOAD_TOO_LARGE,
      `the request to model '${model}' or its answer is over the gRPC message size limit (${details.trim()})`,
      {},
      { cause },
    );
  }
  const code = fromGrpcStatus(status);
  // grpc-js's own deadline message names the worker's address: the client gets the plain one.
  const fromTransport = code === ErrorCode.DEADLINE_EXCEEDED && isTransportDeadline(details);
  const message = (fromTransport ? '' : details.trim()) || defaultMessage(code, model);
  const extra = code === ErrorCode.QUEUE_FULL ? { retryAfterSeconds: QUEUE_FULL_RETRY_AFTER_SECONDS } : {};
  return new ModelgateError(code, message, extra, { cause });
}

/**
 * RESOURCE_EXHAUSTED means two things in gRPC: back-pressure (a full queue: retry later) and a
 * message over a size limit (grpc-js: "Received message larger than max", "Sent message larger
 * than max", "…decompresses to a size larger than…"; C-core alike). Only the first is a 429.
 */
const MESSAGE_SIZE_LIMIT = /larger than|message size|too large/i;

/** grpc-js's message for a call it ended at its deadline: `Deadline exceeded after 0.001s,remote_addr=…`. */
const TRANSPORT_DEADLINE = /^Deadline exceeded after /;

/** True when `details` is grpc-js's own deadline message: the client ended the call, the worker said nothing. */
export function isTransportDeadline(details: string): boolean {
  return TRANSPORT_DEADLINE.test(details);
}

/** The error for a model with no worker to send it to. */
export function noReadyWorkerError(model: string): ModelgateError {
  return new ModelgateError(ErrorCode.UNAVAILABLE, `no ready worker for model '${model}'`);
}

function defaultMessage(code: ErrorCode, model: string): string {
  switch (code) {
    case ErrorCode.QUEUE_FULL:
      return `the queue of model '${model}' is full`;
    case ErrorCode.DEADLINE_EXCEEDED:
      return `model '${model}' did not answer before the deadline`;
    case ErrorCode.UNAVAILABLE:
      return `no worker could serve model '${model}'`;
    case ErrorCode.CANCELLED:
      return `the call to model '${model}' was cancelled`;
    default:
      return `model '${model}' failed with ${code}`;
  }
}
