/**
 * `npx tsx bench/idle-gap.ts`: how much slower one onnxruntime `session.run` (minilm-sst2,
 * batch 1, the worker's session options) gets when the process idles between runs, as a serving
 * path at concurrency 1 does while the request crosses gRPC and the gateway. The raw reference
 * in `npm run bench` runs back to back (no gap), so part of the c=1 gap is this, not modelgate's
 * code. Gaps interleaved over rounds; prints p50 per gap and round.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureFixture } from '@modelgate/fixtures';
import * as ort from 'onnxruntime-node';

const GAPS_MS = [0, 1, 3, 10];
const ROUNDS = 3;
const RUNS = 200;
const TOKENS = 19; // the bench sentences' mean length with [CLS]/[SEP]

function p50(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? NaN;
}

async function main(): Promise<void> {
  const intraOpNumThreads = Number(process.argv[2] ?? 2);
  const modelPath = join(await ensureFixture('minilm-sst2'), 'onnx', 'model.onnx');
  const session = await ort.InferenceSession.create(modelPath, {
    graphOptimizationLevel: 'all',
    intraOpNumThreads,
    executionMode: 'sequential',
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
  const feeds: Record<string, ort.Tensor> = {};
  for (const name of session.inputNames) {
    const value = (i: number): bigint =>
      name === 'attention_mask' ? 1n : name === 'token_type_ids' ? 0n : BigInt(100 + i);
    feeds[name] = new ort.Tensor(
      'int64',
      BigInt64Array.from({ length: TOKENS }, (_, i) => value(i)),
      [1, TOKENS],
    );
  }
  for (let i = 0; i < 50; i++) await session.run(feeds);
  const byGap = new Map<number, number[]>(GAPS_MS.map((gap) => [gap, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const gap of GAPS_MS) {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        if (gap > 0) await sleep(gap);
        const started = performance.now();
        await session.run(feeds);
        times.push(performance.now() - started);
      }
      byGap.get(gap)!.push(p50(times));
    }
  }
  process.stdout.write(
    `session.run p50 (ms), batch 1, ${intraOpNumThreads} intra-op thread(s), ${ROUNDS} rounds\n`,
  );
  for (const [gap, values] of byGap) {
    process.stdout.write(
      `  idle ${String(gap).padStart(2)} ms before each run: ${values.map((v) => v.toFixed(2)).join(', ')}\n`,
    );
  }
  await session.release();
}

await main();
