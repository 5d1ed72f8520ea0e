/**
 * (a) The limit: onnxruntime-node `session.run` in a process of its own, with the worker's session
 * settings (graph optimisation `all`, spinning off, the ModelSpec's intra-op threads), on
 * pre-tokenized batches of the bench sentences. Batch 1 gives the latency floor; the largest
 * throughput over the batch sizes is the limit a server on this machine can approach.
 * Also times tokenization alone (the gateway's per-request CPU work before the model).
 */
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { encodeInputs, loadTokenizerFromDir, packRows } from '@modelgate/processing';
import { readChildConfig, reportResult } from '../child-process.js';
import { type QaWorkload, qaBodies, qaWindows } from '../qa-bodies.js';
import { NOISY_OTHER_CORES, machineBusyCpuMs, waitForQuietMachine } from '../process-cpu.js';
import { type LatencySummary, summarizeLatencies } from '../stats.js';

/** Settings from the parent. */
export interface RawSessionRunConfig {
  fixtureDir: string;
  /** 0 = onnxruntime's default (one thread per core). */
  intraOpThreads: number;
  batchSizes: number[];
  durationS: number;
  warmupS: number;
  sentences: string[];
  /**
   * The question-answering workload over the sentences: batches are then consecutive slices of
   * its windows, padded like the gateway pads, instead of encoded sentences.
   */
  questionAnswering?: QaWorkload;
}

/** One batch size's numbers. */
export interface RawBatchResult {
  batchSize: number;
  runs: number;
  /** Rows (sentences) per second. */
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

/** What the child reports. */
export interface RawSessionRunResult {
  intraOpThreads: number;
  batches: RawBatchResult[];
  /** Mean sequence length of the sentences (or the rows), special tokens included. */
  meanTokens: number;
  /** Single-sentence encodeInputs calls per second on one core. */
  tokenizePerSec: number;
}

const config = readChildConfig<RawSessionRunConfig>();
const tokenizer = await loadTokenizerFromDir(config.fixtureDir);
const session = await ort.InferenceSession.create(join(config.fixtureDir, 'onnx', 'model.onnx'), {
  executionProviders: ['cpu'],
  graphOptimizationLevel: 'all',
  ...(config.intraOpThreads > 0 ? { intraOpNumThreads: config.intraOpThreads } : {}),
  extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
  logSeverityLevel: 3,
});
const inputNames = [...session.inputNames];
const qaRows = config.questionAnswering
  ? qaWindows(tokenizer, qaBodies(config.sentences, config.questionAnswering))
  : undefined;

/** The feeds of consecutive `size`-row slices over the sentences (or the rows), padded like the gateway pads. */
function buildFeeds(size: number): Record<string, ort.Tensor>[] {
  const rows = qaRows;
  const count = rows?.length ?? config.sentences.length;
  return Array.from({ length: count }, (_, window) => {
    const at = (i: number) => (window * size + i) % count;
    const texts = Array.from({ length: size }, (_, i) => config.sentences[at(i)] ?? '');
    const tensors = rows
      ? packRows(
          Array.from({ length: size }, (_, i) => rows[at(i)] ?? { ids: [], typeIds: [] }),
          tokenizer.padId,
          inputNames,
        )
      : encodeInputs({ texts, tokenizer, inputNames, truncation: true, batch: true }).tensors;
    const feeds: Record<string, ort.Tensor> = {};
    for (const [name, tensor] of Object.entries(tensors)) {
      feeds[name] = new ort.Tensor('int64', tensor.data, tensor.dims);
    }
    return feeds;
  });
}

async function runFor(
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

function timeTokenization(seconds: number): number {
  const end = performance.now() + seconds * 1000;
  let calls = 0;
  const started = performance.now();
  while (performance.now() < end) {
    for (const text of config.sentences)
      encodeInputs({ texts: [text], tokenizer, inputNames, truncation: true });
    calls += config.sentences.length;
  }
  return calls / ((performance.now() - started) / 1000);
}

/** One timed pass over `feeds`, with the CPU other processes used meanwhile. */
async function measureBatch(size: number, feeds: Record<string, ort.Tensor>[]): Promise<RawBatchResult> {
  const latencies: number[] = [];
  const machineBefore = machineBusyCpuMs();
  const ownBefore = process.cpuUsage();
  const started = performance.now();
  const runs = await runFor(config.durationS, feeds, latencies);
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

const batches: RawBatchResult[] = [];
for (const size of config.batchSizes) {
  const feeds = buildFeeds(size);
  await runFor(config.warmupS, feeds);
  let result = await measureBatch(size, feeds);
  if (result.otherCores > NOISY_OTHER_CORES) {
    await waitForQuietMachine(30_000);
    const again = await measureBatch(size, feeds);
    result = { ...(again.otherCores < result.otherCores ? again : result), attempts: 2 };
  }
  batches.push(result);
}
const meanTokens = qaRows
  ? qaRows.reduce((sum, row) => sum + row.ids.length, 0) / qaRows.length
  : config.sentences.reduce((sum, text) => sum + tokenizer.encode(text).ids.length, 0) /
    config.sentences.length;
const result: RawSessionRunResult = {
  intraOpThreads: config.intraOpThreads,
  batches,
  meanTokens,
  tokenizePerSec: timeTokenization(Math.min(2, config.durationS)),
};
await session.release();
reportResult(result);
