/**
 * `npx tsx bench/lone-request.ts [rounds] [segment ms] [gap ms]`: what a lone request costs on each
 * of the worker's idle paths (issues 11 and 40), and what the spinning that speeds it up costs in CPU.
 * Four workers serve minilm-sst2 in the bench's layout (2 instances, intraOpThreads 0, so a lone
 * request runs on the solo session), one per mode:
 *   thread           WORKER_INLINE=false WORKER_SOLO_SPINNING=false: a hop to a session thread, no spinning
 *   thread + spin    WORKER_INLINE=false: the session thread's pool spins within each run
 *   inline           WORKER_INLINE_IDLE_SPIN=false: on the event loop, spinning stops as each run returns
 *   inline + idle    the defaults: on the event loop, onnxruntime's bounded spin after each run kept
 * and raw session.run of batch 1 runs beside them with its threads not spinning, spinning within
 * runs, and onnxruntime's defaults (what a naive server's session does). Each round measures every
 * party for one segment in turn, so the machine's drift lands on all alike, twice: back to back,
 * and paced with `gap` ms of idle between requests (a low-traffic endpoint, where spinning after a
 * run burns CPU that no request uses). The report gives the median over rounds of each segment's
 * p50 and each worker's CPU per request (/proc utime+stime over all its segments ÷ requests).
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as ort from 'onnxruntime-node';
import { ensureFixture } from '@modelgate/fixtures';
import {
  type Message,
  type RunningWorker,
  startWorkerWithSnapshot,
  tokenInferRequest,
  tokenRows,
  writeSnapshot,
} from '@modelgate/testing';
import { type SessionSettings, sessionOptions } from '@modelgate/session-settings';
import { processTreeCpuMs } from './process-cpu.js';

const ROUNDS = Number(process.argv[2] ?? 15);
const SEGMENT_MS = Number(process.argv[3] ?? 600);
const GAP_MS = Number(process.argv[4] ?? 10);

const WORKER_MODES = {
  thread: { WORKER_INLINE: 'false', WORKER_SOLO_SPINNING: 'false' },
  'thread + spin': { WORKER_INLINE: 'false' },
  inline: { WORKER_INLINE_IDLE_SPIN: 'false' },
  'inline + idle spin': {},
} as const satisfies Record<string, Record<string, string>>;
type WorkerMode = keyof typeof WORKER_MODES;

const RAW_MODES = {
  'no spinning': {},
  'spin within runs': { spinWithinRuns: true },
  'onnxruntime defaults': { spinWithinRuns: true, spinAfterRuns: true },
} as const satisfies Record<string, Omit<SessionSettings, 'intraOpThreads'>>;
type RawMode = keyof typeof RAW_MODES;

const PACINGS = { 'back to back': 0, paced: GAP_MS } as const;
type Pacing = keyof typeof PACINGS;

const p50 = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1] ?? NaN;

async function timeRaw(
  session: ort.InferenceSession,
  feeds: Record<string, ort.Tensor>,
  gapMs: number,
): Promise<number> {
  const runs: number[] = [];
  const end = performance.now() + SEGMENT_MS;
  while (performance.now() < end) {
    const started = performance.now();
    await session.run(feeds);
    runs.push(performance.now() - started);
    if (gapMs > 0) await sleep(gapMs);
  }
  return p50(runs);
}

interface WorkerSegment {
  total: number;
  compute: number;
  cpuMs: number;
  requests: number;
}

async function timeWorker(worker: RunningWorker, rows: number[][], gapMs: number): Promise<WorkerSegment> {
  const total: number[] = [];
  const compute: number[] = [];
  const pid = worker.process.child.pid ?? 0;
  const cpuBefore = processTreeCpuMs(pid);
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
    if (gapMs > 0) await sleep(gapMs);
  }
  return {
    total: p50(total),
    compute: p50(compute),
    cpuMs: processTreeCpuMs(pid) - cpuBefore,
    requests: total.length,
  };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'lone-request-'));
  const path = await writeSnapshot(dir, [
    { name: 'minilm', fixture: 'minilm-sst2', batching: { maxBatchSize: 8 }, instances: 2 },
  ]);
  // The test snapshot pins one intra-op thread; the bench's layout shares the cores (0).
  const snapshot = JSON.parse(await readFile(path, 'utf8')) as {
    models: { runtime: { intraOpThreads: number } }[];
  };
  for (const model of snapshot.models) model.runtime.intraOpThreads = 0;
  await writeFile(path, JSON.stringify(snapshot));
  const workerModes = Object.keys(WORKER_MODES) as WorkerMode[];
  const rawModes = Object.keys(RAW_MODES) as RawMode[];
  const pacings = Object.keys(PACINGS) as Pacing[];
  const workers = {} as Record<WorkerMode, RunningWorker>;
  for (const mode of workerModes)
    workers[mode] = await startWorkerWithSnapshot(path, { WORKER_LOG_LEVEL: 'warn', ...WORKER_MODES[mode] });
  const modelPath = join(await ensureFixture('minilm-sst2'), 'onnx', 'model.onnx');
  const threads = availableParallelism();
  const raw = {} as Record<RawMode, ort.InferenceSession>;
  for (const mode of rawModes)
    raw[mode] = await ort.InferenceSession.create(
      modelPath,
      sessionOptions([{ name: 'cpu' }], { intraOpThreads: threads, ...RAW_MODES[mode] }),
    );
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
  const rawP50s = new Map<string, number[]>();
  const workerSegments = new Map<string, WorkerSegment[]>();
  const push = <T>(map: Map<string, T[]>, key: string, value: T) =>
    map.set(key, [...(map.get(key) ?? []), value]);
  try {
    // Warm-up: every party once, unmeasured.
    for (const mode of rawModes) await timeRaw(raw[mode], feeds, 0);
    for (const mode of workerModes) await timeWorker(workers[mode], rows, 0);
    for (let round = 0; round < ROUNDS; round++) {
      for (const pacing of pacings) {
        for (const mode of rawModes)
          push(rawP50s, `${pacing}/${mode}`, await timeRaw(raw[mode], feeds, PACINGS[pacing]));
        for (const mode of workerModes)
          push(workerSegments, `${pacing}/${mode}`, await timeWorker(workers[mode], rows, PACINGS[pacing]));
      }
    }
  } finally {
    await Promise.all(workerModes.map((mode) => workers[mode].stop()));
  }
  const fixed = (value: number) => value.toFixed(2);
  let report =
    `${ROUNDS} interleaved rounds of ${SEGMENT_MS} ms segments, c=1, back to back and paced (${GAP_MS} ms idle ` +
    `between requests); medians over rounds of each segment's p50 (ms); worker CPU per request = its /proc ` +
    `utime+stime over all its segments ÷ requests, on ${threads} cores.\n\n`;
  for (const pacing of pacings) {
    const rawNone = p50(rawP50s.get(`${pacing}/no spinning`) ?? []);
    report += `### ${pacing}\n\n| raw session.run b1 | p50 |\n|---|---|\n`;
    for (const mode of rawModes)
      report += `| ${mode} | ${fixed(p50(rawP50s.get(`${pacing}/${mode}`) ?? []))} |\n`;
    report +=
      `\n| worker mode | round trip p50 | compute p50 | round trip − raw (no spinning) | worker CPU ms/request |\n` +
      '|---|---|---|---|---|\n';
    for (const mode of workerModes) {
      const segments = workerSegments.get(`${pacing}/${mode}`) ?? [];
      const total = p50(segments.map((segment) => segment.total));
      const cpu = segments.reduce((sum, segment) => sum + segment.cpuMs, 0);
      const requests = segments.reduce((sum, segment) => sum + segment.requests, 0);
      report +=
        `| ${mode} | ${fixed(total)} | ${fixed(p50(segments.map((segment) => segment.compute)))} | ` +
        `${fixed(total - rawNone)} | ${fixed(cpu / requests)} |\n`;
    }
    report += '\n';
  }
  process.stdout.write(report);
}

await main();
