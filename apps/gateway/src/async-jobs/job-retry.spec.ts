import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { JOB_RETRY_WINDOW_MS, mayRetry, retryDelayMs } from './job-retry.js';

describe('async job retries', () => {
  it('waits 0.5 s, then doubles up to 10 s between attempts', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 100].map(retryDelayMs)).toEqual([
      500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000,
    ]);
  });

  it('retries failures of the fleet for five minutes after the first failure, and nothing else', () => {
    const firstFailed = 1_000_000;
    for (const code of [ErrorCode.UNAVAILABLE, ErrorCode.QUEUE_FULL, ErrorCode.DEADLINE_EXCEEDED]) {
      // Well past the old three attempts (1.5 s): a worker restart of a minute loses no job.
      expect(mayRetry(code, firstFailed, firstFailed + 60_000)).toBe(true);
      expect(mayRetry(code, firstFailed, firstFailed + JOB_RETRY_WINDOW_MS)).toBe(false);
    }
    expect(mayRetry(ErrorCode.INVALID_ARGUMENT, firstFailed, firstFailed + 1)).toBe(false);
    expect(mayRetry(ErrorCode.INTERNAL, firstFailed, firstFailed + 1)).toBe(false);
  });
});
