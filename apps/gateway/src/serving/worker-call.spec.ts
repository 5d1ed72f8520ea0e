import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { mergedRowLimit, publicWorkerError } from './worker-call.js';

const INPUTS = [{ name: 'input_ids', datatype: 'INT64', dims: [-1, -1] }];
const spec = (maxBatchSize: number | undefined, instances: number, maxQueueSize: number) => ({
  task: 'text-classification' as const,
  inputs: INPUTS,
  batching: { maxBatchSize, maxQueueSize },
  runtime: { instances },
});

describe('mergedRowLimit', () => {
  it('is one batch per instance', () => {
    expect(mergedRowLimit(spec(8, 1, 256))).toBe(8);
    expect(mergedRowLimit(spec(8, 2, 256))).toBe(16);
    expect(mergedRowLimit(spec(32, 4, 256))).toBe(128);
  });

  it('takes a maxBatchSize left out as the graph allows: 32 for a dynamic batch, a fixed one its size', () => {
    expect(mergedRowLimit(spec(undefined, 2, 256))).toBe(64);
    const fixed = {
      ...spec(undefined, 2, 256),
      inputs: [{ name: 'input_ids', datatype: 'INT64', dims: [4, -1] }],
    };
    expect(mergedRowLimit(fixed)).toBe(8);
  });

  it('never exceeds what the worker queue admits', () => {
    expect(mergedRowLimit(spec(8, 4, 20))).toBe(20);
    expect(mergedRowLimit(spec(1, 1, 2))).toBe(1);
  });
});

describe('publicWorkerError', () => {
  it('answers a worker that no longer has a routed model (config skew) as 503 with Retry-After, not 404', () => {
    const skew = publicWorkerError(
      new ModelgateError(ErrorCode.NOT_FOUND, "model 'm:2' is not served here"),
      'm:2',
    );
    expect(skew).toMatchObject({
      code: ErrorCode.UNAVAILABLE,
      message: 'no worker can serve model m:2 right now',
      details: { retryAfterSeconds: 1 },
    });
    const other = new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'bad');
    expect(publicWorkerError(other, 'm:2')).toBe(other);
  });
});
