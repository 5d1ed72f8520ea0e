import { DEFAULT_MAX_BATCH_SIZE, ErrorCode, batchingSchema } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BATCH_LIMITS, resolveBatchLimits } from './batch-limits.js';

describe('resolveBatchLimits', () => {
  it('fills what a spec leaves out with the schema defaults: one source for the registry and the batcher', () => {
    // The schema leaves maxBatchSize absent (the graph decides); the batcher is handed the resolved one.
    const fromSchema = batchingSchema.parse({});
    expect(resolveBatchLimits()).toEqual({ ...fromSchema, maxBatchSize: DEFAULT_MAX_BATCH_SIZE });
    expect(resolveBatchLimits({})).toEqual({ ...DEFAULT_BATCH_LIMITS, preferredBatchSizes: [] });
  });

  it('fills missing fields from the defaults and sorts preferred sizes', () => {
    expect(resolveBatchLimits({ maxBatchSize: 16, preferredBatchSizes: [8, 4, 8] })).toEqual({
      ...DEFAULT_BATCH_LIMITS,
      maxBatchSize: 16,
      preferredBatchSizes: [4, 8],
    });
  });

  it('refuses a preferred size above maxBatchSize, naming the field', () => {
    expect(() => resolveBatchLimits({ maxBatchSize: 4, preferredBatchSizes: [8] })).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_ARGUMENT,
        details: { field: 'batching.preferredBatchSizes' },
      }),
    );
  });

  it('refuses an unbounded or empty queue and a negative delay', () => {
    expect(() => resolveBatchLimits({ maxQueueSize: 0 })).toThrow(/maxQueueSize/);
    expect(() => resolveBatchLimits({ maxQueueSize: Number.POSITIVE_INFINITY })).toThrow(/maxQueueSize/);
    expect(() => resolveBatchLimits({ maxQueueDelayMicros: -1 })).toThrow(/maxQueueDelayMicros/);
  });

  it('accepts an infinite token budget', () => {
    expect(resolveBatchLimits({ maxBatchTokens: Number.POSITIVE_INFINITY }).maxBatchTokens).toBe(
      Number.POSITIVE_INFINITY,
    );
  });
});
