import { type ErrorCode } from './error-code.js';

/** One problem found while validating input: where (e.g. `models[0].batching.maxBatchSize`) and what. */
export interface ValidationIssue {
  /** Path of the bad value, dotted with [index] for arrays; `(root)` for the value itself. */
  path: string;
  /** What is wrong with it, for people. */
  message: string;
}

/** Extra facts an error carries to its transport (e.g. `retryAfterSeconds` for QUEUE_FULL). */
export interface ModelgateErrorDetails {
  /** Seconds a client should wait before retrying (HTTP Retry-After). */
  retryAfterSeconds?: number;
  /** The request field or tensor the error is about, e.g. `text` or `input_ids`. */
  field?: string;
  /** Every problem a validation found, when the error reports a failed validation. */
  issues?: readonly ValidationIssue[];
}

/**
 * The one error type services throw. Transports map `code` through the status tables; services
 * never throw HTTP or RPC exceptions.
 */
export class ModelgateError extends Error {
  override readonly name = 'ModelgateError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ModelgateErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** True when `value` is a ModelgateError (also across module copies, by shape). */
export function isModelgateError(value: unknown): value is ModelgateError {
  return (
    value instanceof ModelgateError ||
    (value instanceof Error &&
      value.name === 'ModelgateError' &&
      typeof (value as { code?: unknown }).code === 'string')
  );
}
