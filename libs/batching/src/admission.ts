// Whether a batcher admits a request, and the errors a queued request can end with: pure, so the
// batcher and its tests share one wording.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type BatchLimits } from './batch-limits.js';
import { type EnqueueOptions } from './batcher-options.js';

/** `open` admits; `draining` runs what is queued and admits nothing; `closed` has rejected its queue. */
export type BatcherState = 'open' | 'draining' | 'closed';

/**
 * Why batcher `name` refuses a request with `options` at `now` (µs), or undefined when it admits
 * it: not open (UNAVAILABLE), bad options (INVALID_ARGUMENT), already cancelled or expired, or a
 * full queue (QUEUE_FULL, retry after 1 s).
 */
export function admissionRefusal(
  name: string,
  state: BatcherState,
  queued: number,
  limits: BatchLimits,
  options: EnqueueOptions,
  now: number,
): ModelgateError | undefined {
  if (state !== 'open') {
    const why = state === 'draining' ? 'draining' : 'shutting down';
    return new ModelgateError(ErrorCode.UNAVAILABLE, `${name} is ${why}; not accepting requests`);
  }
  const tokens = options.tokens ?? 1;
  if (!Number.isFinite(tokens) || tokens < 0) {
    return new ModelgateError(ErrorCode.INVALID_ARGUMENT, `tokens must be a number >= 0, got ${tokens}`);
  }
  if (Number.isNaN(options.timeoutMs) || Number.isNaN(options.deadlineMicros)) {
    return new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'timeoutMs and deadlineMicros must be numbers');
  }
  if (options.signal?.aborted === true) return queuedCancelledError(name);
  if (options.deadlineMicros !== undefined && options.deadlineMicros <= now) return queuedDeadlineError(name);
  if (queued >= limits.maxQueueSize) {
    return new ModelgateError(
      ErrorCode.QUEUE_FULL,
      `${name} queue is full (${limits.maxQueueSize} waiting); retry later`,
      { retryAfterSeconds: 1 },
    );
  }
  return undefined;
}

/** A queued request whose deadline passed before it was dispatched. */
export const queuedDeadlineError = (name: string): ModelgateError =>
  new ModelgateError(ErrorCode.DEADLINE_EXCEEDED, `deadline exceeded while queued for ${name}`);

/** A queued request whose caller cancelled it before it was dispatched. */
export const queuedCancelledError = (name: string): ModelgateError =>
  new ModelgateError(ErrorCode.CANCELLED, `request cancelled while queued for ${name}`);

/** What the requests still queued get when the batcher closes. */
export const shuttingDownError = (name: string): ModelgateError =>
  new ModelgateError(ErrorCode.UNAVAILABLE, `${name} is shutting down`);
