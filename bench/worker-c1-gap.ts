/**
 * `npx tsx bench/worker-c1-gap.ts`: modelgate's worker alone at concurrency 1 (minilm-sst2 in the
 * bench's layout: 2 instances, intraOpThreads 0, so a lone request runs on the solo session), 300
 * ModelInfer calls a round from a test client, and per round the p50 of: the client's round trip,
 * the worker's own compute timer (compute_time_us) and queue time, and the gap between the first
 * two: gRPC, the worker's handling and the hops to the session thread and back. Attach
 * `strace -f -tt -p <pid>` (the pid is printed) to see where the gap goes between the socket read,
 * the post to the session thread, its answer and the response's DATA and trailers frames.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Message,
  startWorkerWithSnapshot,
  tokenInferRequest,
  tokenRows,
  writeSnapshot,
} from '@modelgate/testing';

const ROUNDS = 3;
const CALLS = 300;

const p50 = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1] ?? NaN;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'worker-c1-gap-'));
  const batching = { maxBatchSize: 8 };
  const path = await writeSnapshot(dir, [{ name: 'minilm', fixture: 'minilm-sst2', batching, instances: 2 }]);
  // The test snapshot pins one intra-op thread; the bench's layout shares the cores (0).
  const snapshot = JSON.parse(await readFile(path, 'utf8')) as {
    models: { runtime: { intraOpThreads: number } }[];
  };
  for (const model of snapshot.models) model.runtime.intraOpThreads = 0;
  await writeFile(path, JSON.stringify(snapshot));
  const worker = await startWorkerWithSnapshot(path, { WORKER_LOG_LEVEL: 'warn' });
  process.stdout.write(`worker pid ${worker.process.child.pid ?? '?'}\n`);
  const rows = tokenRows(40, 17, 16, 22);
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const total: number[] = [];
      const compute: number[] = [];
      const queue: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        const started = performance.now();
        const answer = await worker.client.call<Message>(
          'ModelInfer',
          tokenInferRequest('minilm', [rows[i % 40]!]),
        );
        total.push(performance.now() - started);
        const parameters = answer.parameters as Record<string, { int64_param: string }>;
        compute.push(Number(parameters.compute_time_us?.int64_param) / 1000);
        queue.push(Number(parameters.queue_time_us?.int64_param) / 1000);
      }
      process.stdout.write(
        `round ${round}: p50 round trip ${p50(total).toFixed(2)} ms, compute ${p50(compute).toFixed(2)}, ` +
          `queue ${p50(queue).toFixed(2)}, round trip − compute ${(p50(total) - p50(compute)).toFixed(2)}\n`,
      );
    }
  } finally {
    await worker.stop();
  }
}

await main();
