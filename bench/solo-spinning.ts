/**
 * `npx tsx bench/solo-spinning.ts [rounds] [segment ms]`: what the solo session's spinning within a
 * run buys a lone request (WORKER_SOLO_SPINNING). Two workers serve minilm-sst2 in the bench's layout
 * (2 instances, intraOpThreads 0, so a lone request runs on the solo session), one with spinning
 * off, one with it on (the default); raw session.run of batch 1 runs beside them with the same two
 * options (one session, a thread per core). Each round measures all four for one short segment in
 * turn, at concurrency 1, so the machine's drift lands on all alike; the report gives the median
 * over the rounds of each segment's p50 (the worker's round trip over gRPC and its own compute
 * timer), and of the per-round gaps to raw.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import {
  type Message,
  type RunningWorker,
  ensureFixture,
  startWorkerWithSnapshot,
  tokenInferRequest,
  tokenRows,
  writeSnapshot,
} from '@modelgate/testing';
import { sessionOptions } from '../apps/worker/src/model-loading/session-options.js';

const ROUNDS = Number(process.argv[2] ?? 25);
const SEGMENT_MS = Number(process.argv[3] ?? 600);

const p50 = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1] ?? NaN;

async function timeRaw(session: ort.InferenceSession, feeds: Record<string, ort.Tensor>): Promise<number> {
  const runs: number[] = [];
  const end = performance.now() + SEGMENT_MS;
  while (performance.now() < end) {
    const started = performance.now();
    await session.run(feeds);
    runs.push(performance.now() - started);
  }
  return p50(runs);
}

async function timeWorker(worker: RunningWorker, rows: number[][]) {
  const total: number[] = [];
  const compute: number[] = [];
  const end = performance.now() + SEGMENT_MS;
  for (let i = 0; performance.now() < end; i++) {
    const started = performance.now();
    const answer = await worker.client.call<Message>(
      'ModelInfer',
      tokenInferRequest('minilm', [rows[i % rows.length]!]),
    );
    total.push(performance.now() - started);
    const parameters = answer.parameters as Record<string, { int64_param: string }>;
    compute.push(Number(parameters.compute_time_us?.int64_param) / 1000);
  }
  return { total: p50(total), compute: p50(compute) };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'solo-spinning-'));
  const path = await writeSnapshot(dir, [
    { name: 'minilm', fixture: 'minilm-sst2', batching: { maxBatchSize: 8 }, instances: 2 },
  ]);
  // The test snapshot pins one intra-op thread; the bench's layout shares the cores (0).
  const snapshot = JSON.parse(await readFile(path, 'utf8')) as {
    models: { runtime: { intraOpThreads: number } }[];
  };
  for (const model of snapshot.models) model.runtime.intraOpThreads = 0;
  await writeFile(path, JSON.stringify(snapshot));
  const quiet = { WORKER_LOG_LEVEL: 'warn' };
  const workers = {
    off: await startWorkerWithSnapshot(path, { ...quiet, WORKER_SOLO_SPINNING: 'false' }),
    on: await startWorkerWithSnapshot(path, quiet),
  };
  const modelPath = join(await ensureFixture('minilm-sst2'), 'onnx', 'model.onnx');
  const threads = availableParallelism();
  const raw = {
    off: await ort.InferenceSession.create(
      modelPath,
      sessionOptions([{ name: 'cpu' }], { intraOpThreads: threads }),
    ),
    on: await ort.InferenceSession.create(
      modelPath,
      sessionOptions([{ name: 'cpu' }], { intraOpThreads: threads, spinWithinRuns: true }),
    ),
  };
  const rows = tokenRows(40, 17, 16, 22);
  // Raw runs one of the same rows (19 tokens, the bench sentences' mean length).
  const row = rows.find((ids) => ids.length === 19) ?? rows[0]!;
  const tensor = (values: readonly number[]) =>
    new ort.Tensor(
      'int64',
      BigInt64Array.from(values, (v) => BigInt(v)),
      [1, values.length],
    );
  const feeds = {
    input_ids: tensor(row),
    attention_mask: tensor(row.map(() => 1)),
    token_type_ids: tensor(row.map(() => 0)),
  };
  type Round = Record<'off' | 'on', { raw: number; total: number; compute: number }>;
  const rounds: Round[] = [];
  try {
    // Warm-up: every party once, unmeasured.
    for (const mode of ['off', 'on'] as const) {
      await timeRaw(raw[mode], feeds);
      await timeWorker(workers[mode], rows);
    }
    for (let round = 0; round < ROUNDS; round++) {
      const result = {} as Round;
      for (const mode of ['off', 'on'] as const) {
        const rawP50 = await timeRaw(raw[mode], feeds);
        result[mode] = { raw: rawP50, ...(await timeWorker(workers[mode], rows)) };
      }
      rounds.push(result);
    }
  } finally {
    await Promise.all([workers.off.stop(), workers.on.stop()]);
  }
  const median = (pick: (round: Round) => number) => p50(rounds.map(pick)).toFixed(2);
  process.stdout.write(
    `${ROUNDS} interleaved rounds of ${SEGMENT_MS} ms segments, c=1, medians of the segments' p50 (ms)\n` +
      '| solo spinning | raw session.run b1 | worker round trip | worker compute | round trip − raw | compute − raw |\n' +
      '|---|---|---|---|---|---|\n',
  );
  for (const mode of ['off', 'on'] as const) {
    process.stdout.write(
      `| ${mode} | ${median((r) => r[mode].raw)} | ${median((r) => r[mode].total)} | ${median((r) => r[mode].compute)} | ` +
        `${median((r) => r[mode].total - r[mode].raw)} | ${median((r) => r[mode].compute - r[mode].raw)} |\n`,
    );
  }
}

await main();
