import { describe, expect, it } from 'vitest';
import { mergedRowLimit } from './worker-call.js';

const spec = (maxBatchSize: number, instances: number, maxQueueSize: number) => ({
  batching: { maxBatchSize, maxQueueSize },
  runtime: { instances },
});

describe('mergedRowLimit', () => {
  it('is one batch per instance', () => {
    expect(mergedRowLimit(spec(8, 1, 256))).toBe(8);
    expect(mergedRowLimit(spec(8, 2, 256))).toBe(16);
    expect(mergedRowLimit(spec(32, 4, 256))).toBe(128);
  });

  it('never exceeds what the worker queue admits', () => {
    expect(mergedRowLimit(spec(8, 4, 20))).toBe(20);
    expect(mergedRowLimit(spec(1, 1, 2))).toBe(1);
  });
});
