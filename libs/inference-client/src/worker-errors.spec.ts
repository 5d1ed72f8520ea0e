import { GrpcStatus } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { isRetryableStatus, noReadyWorkerError, workerCallToModelgateError } from './worker-errors.js';

describe('worker call errors', () => {
  it('retries only UNAVAILABLE', () => {
    const retryable = Object.entries(GrpcStatus)
      .filter(([, status]) => isRetryableStatus(status))
      .map(([name]) => name);
    expect(retryable).toEqual(['UNAVAILABLE']);
  });

  it('turns RESOURCE_EXHAUSTED into QUEUE_FULL with a one-second Retry-After', () => {
    const error = workerCallToModelgateError(
      GrpcStatus.RESOURCE_EXHAUSTED,
      "queue of 'bert:1' is full",
      'bert:1',
    );
    expect(error).toMatchObject({
      code: 'QUEUE_FULL',
      message: "queue of 'bert:1' is full",
      details: { retryAfterSeconds: 1 },
    });
  });

  it("answers grpc-js's own deadline message, which names the worker's address, with a plain one", () => {
    const transport = workerCallToModelgateError(
      GrpcStatus.DEADLINE_EXCEEDED,
      'Deadline exceeded after 0.001s,remote_addr=10.0.0.7:8001',
      'bert:1',
    );
    expect(transport.message).toBe("model 'bert:1' did not answer before the deadline");
    const worker = workerCallToModelgateError(
      GrpcStatus.DEADLINE_EXCEEDED,
      'bert:1: deadline passed while queued',
      'bert:1',
    );
    expect(worker.message).toBe('bert:1: deadline passed while queued');
  });

  it.each([
    'Received message larger than max (300000000 vs. 268435456)',
    'Sent message larger than max (300000000 vs. 268435456)',
    'Received message that decompresses to a size larger than 268435456',
  ])('answers a message over the size limit (%s) as PAYLOAD_TOO_LARGE, not a full queue', (details) => {
    const error = workerCallToModelgateError(GrpcStatus.RESOURCE_EXHAUSTED, details, 'bert:1');
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.details).toEqual({}); // no Retry-After: the same message fails again
    expect(error.message).toContain('gRPC message size limit');
  });

  it.each([
    [GrpcStatus.DEADLINE_EXCEEDED, 'DEADLINE_EXCEEDED'],
    [GrpcStatus.INVALID_ARGUMENT, 'INVALID_ARGUMENT'],
    [GrpcStatus.UNAVAILABLE, 'UNAVAILABLE'],
    [GrpcStatus.NOT_FOUND, 'NOT_FOUND'],
    [GrpcStatus.UNKNOWN, 'INTERNAL'],
  ] as const)('maps gRPC status %i to %s and keeps the worker message', (status, code) => {
    const error = workerCallToModelgateError(status, 'the worker said so', 'm:1');
    expect(error).toMatchObject({ code, message: 'the worker said so', details: {} });
  });

  it('writes a message of its own when the status came without details', () => {
    expect(workerCallToModelgateError(GrpcStatus.DEADLINE_EXCEEDED, ' ', 'm:1').message).toBe(
      "model 'm:1' did not answer before the deadline",
    );
  });

  it('names the model when no worker is there to take it', () => {
    expect(noReadyWorkerError('bert:1')).toMatchObject({
      code: 'UNAVAILABLE',
      message: "no ready worker for model 'bert:1'",
    });
  });
});
