/**
 * How long an accepted async job keeps trying while the fleet cannot take it (no worker for its
 * model, a full queue, a deadline missed under load): a window of time, not a count of attempts,
 * so a worker restart or a model reload of a minute loses no job. Pure: no I/O.
 */
import { ErrorCode } from '@modelgate/contracts';

/**
 * How long after its first failure a job still retries failures of the fleet. From the first
 * failure, not the submission: a job that waited in the queue (a backlog while no gateway took
 * jobs) still gets the whole window once it runs.
 */
export const JOB_RETRY_WINDOW_MS = 5 * 60_000;
/** The first wait before a retry; each next one doubles, up to JOB_RETRY_MAX_DELAY_MS. */
export const JOB_RETRY_FIRST_DELAY_MS = 500;
/** The longest wait between two attempts. */
export const JOB_RETRY_MAX_DELAY_MS = 10_000;
/** BullMQ's count of attempts: a ceiling only, the window ends the retries first. */
export const JOB_MAX_ATTEMPTS = 1000;
/** The name of the backoff the queue's jobs carry (the consumer's backoffStrategy computes it). */
export const JOB_BACKOFF_TYPE = 'modelgate-window';

/** Codes worth another attempt: the fleet was busy or briefly without a worker. */
const RETRYABLE: ReadonlySet<string> = new Set([
  ErrorCode.QUEUE_FULL,
  ErrorCode.UNAVAILABLE,
  ErrorCode.DEADLINE_EXCEEDED,
]);

/** The wait before the next attempt after `attemptsMade` failed ones (1 or more). */
export function retryDelayMs(attemptsMade: number): number {
  const doublings = Math.min(Math.max(attemptsMade - 1, 0), 30);
  return Math.min(JOB_RETRY_FIRST_DELAY_MS * 2 ** doublings, JOB_RETRY_MAX_DELAY_MS);
}

/** Whether a job that first failed at `firstFailedAtMs` and failed with `code` at `nowMs` is tried again. */
export function mayRetry(code: string, firstFailedAtMs: number, nowMs: number): boolean {
  return RETRYABLE.has(code) && nowMs - firstFailedAtMs < JOB_RETRY_WINDOW_MS;
}
