// Driving a worker's dynamic batcher into refusing a call as full, for tests that need a
// QUEUE_FULL (gRPC RESOURCE_EXHAUSTED) on record.
import { type ServiceError, status } from '@grpc/grpc-js';
import { type RunningWorker, tokenInferRequest, tokenRows, waitFor } from '@modelgate/testing';

/**
 * Fills `model`'s queue behind a batch held by the worker's test hook (WORKER_TEST_HOOKS), again
 * until the worker refuses a call as full. For a model with a small queue (`maxQueueSize` below 4).
 */
export async function refuseOneCallAsQueueFull(
  worker: RunningWorker,
  model: string,
  timeoutMs: number,
): Promise<void> {
  const request = tokenInferRequest(model, tokenRows(1, 5, 6, 6));
  await waitFor(
    async () => {
      const held = worker.client.call('ModelInfer', request, {
        metadata: { 'x-modelgate-test-hold-ms': '1000' },
      });
      const burst = await Promise.allSettled(
        Array.from({ length: 4 }, () => worker.client.call('ModelInfer', request, { deadlineMs: 5000 })),
      );
      await held;
      return burst.some(
        (result) =>
          result.status === 'rejected' && (result.reason as ServiceError).code === status.RESOURCE_EXHAUSTED,
      );
    },
    { timeoutMs },
  );
}
