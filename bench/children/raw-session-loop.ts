/**
 * The raw reference's timing loop, shared by the raw children (text and image): an onnxruntime
 * session opened with the worker's options, and a timed pass per batch size over feeds the child
 * builds, measured again after a quiet moment when other processes took the cores.
 */
import { availableParallelism } from 'node:os';
import * as ort from 'onnxruntime-node';
import { sessionOptions } from '@modelgate/session-settings';
import { NOISY_OTHER_CORES, machineBusyCpuMs, waitForQuietMachine } from '../process-cpu.js';
import { type LatencySummary, summarizeLatencies } from '../stats.js';

/** One batch size's figures. */
export interface RawBatchResult {
  batchSize: number;
  runs: number;
  /** Rows (sentences, images) per second. */
  inferPerSec: number;
  /** Per session.run call, ms. */
  latency: LatencySummary;
  /** CPU (all onnxruntime threads, user+system) per row, ms. */
  cpuMsPerRow: number;
  /** Cores' worth of CPU other processes used meanwhile. */
  otherCores: number;
  /** 2 when the first pass was noisy and the batch size was measured again. */
  attempts: number;
}

/**
 * A session opened with the worker's own options (apps/worker session-options.ts): `intraOpThreads`
 * (0 = one per core, as the worker's solo session has) and, with `spinWithinRuns`, the solo
 * session's spinning within a run.
 */
export function openRawSession(
  modelPath: string,
  intraOpThreads: number,
  spinWithinRuns = false,
): Promise<ort.InferenceSession> {
  const threads = intraOpThreads > 0 ? intraOpThreads : availableParallelism();
  return ort.InferenceSession.create(
    modelPath,
    sessionOptions([{ name: 'cpu' }], { intraOpThreads: threads, spinWithinRuns }),
  );
}

/** Runs `session` over `feeds` in turn for `seconds`; the number of runs (latencies pushed when given). */
async function runFor(
  session: ort.InferenceSession,
  seconds: number,
  feeds: Record<string, ort.Tensor>[],
  latencies?: number[],
): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let runs = 0;
  while (performance.now() < end) {
    const started = performance.now();
    await session.run(feeds[runs % feeds.length] ?? {});
    latencies?.push(performance.now() - started);
    runs++;
  }
  return runs;
}

/** One timed pass over `feeds`, with the CPU other processes used meanwhile. */
async function measureBatch(
  session: ort.InferenceSession,
  size: number,
  feeds: Record<string, ort.Tensor>[],
  durationS: number,
): Promise<RawBatchResult> {
  const latencies: number[] = [];
  const machineBefore = machineBusyCpuMs();
  const ownBefore = process.cpuUsage();
  const started = performance.now();
  const runs = await runFor(session, durationS, feeds, latencies);
  const elapsedMs = performance.now() - started;
  const own = process.cpuUsage(ownBefore);
  const ownMs = (own.user + own.system) / 1000;
  const otherMs = machineBusyCpuMs() - machineBefore - ownMs;
  return {
    batchSize: size,
    runs,
    inferPerSec: (runs * size) / (elapsedMs / 1000),
    latency: summarizeLatencies(latencies),
    cpuMsPerRow: ownMs / (runs * size),
    otherCores: Math.max(0, otherMs) / elapsedMs,
    attempts: 1,
  };
}

/** How long each batch size runs, and what it waits for first. */
export interface BatchTiming {
  durationS: number;
  warmupS: number;
  /**
   * Awaited once a batch size's feeds are built, before its warm-up: sibling processes measured
   * side by side start each batch size together through it. With a gate a noisy pass is kept as
   * it is (the siblings' CPU is no noise, and one cannot measure again alone).
   */
  gate?: (size: number) => Promise<void>;
}

/**
 * Each batch size of `batchSizes`: its feeds (`buildFeeds`) warmed up for `warmupS`, then timed for
 * `durationS`; a pass with other processes over NOISY_OTHER_CORES is measured once more after a
 * quiet moment, keeping the quieter one (not with a gate).
 */
export async function measureBatches(
  session: ort.InferenceSession,
  batchSizes: readonly number[],
  buildFeeds: (size: number) => Record<string, ort.Tensor>[],
  timing: BatchTiming,
): Promise<RawBatchResult[]> {
  const batches: RawBatchResult[] = [];
  for (const size of batchSizes) {
    const feeds = buildFeeds(size);
    await timing.gate?.(size);
    await runFor(session, timing.warmupS, feeds);
    let result = await measureBatch(session, size, feeds, timing.durationS);
    if (timing.gate === undefined && result.otherCores > NOISY_OTHER_CORES) {
      await waitForQuietMachine(30_000);
      const again = await measureBatch(session, size, feeds, timing.durationS);
      result = { ...(again.otherCores < result.otherCores ? again : result), attempts: 2 };
    }
    batches.push(result);
  }
  return batches;
}
