/**
 * (a) The limit: onnxruntime-node `session.run` in a process of its own, with the worker's session
 * options (graph optimisation `all`, the ModelSpec's intra-op threads, the solo session's spinning
 * where it stands for that session), on
 * pre-tokenized batches of the bench sentences. Batch 1 gives the latency floor; the largest
 * throughput over the batch sizes is the limit a server on this machine can approach.
 * Also times tokenization alone (the gateway's per-request CPU work before the model).
 */
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { encodeInputs, loadTokenizerFromDir, packRows } from '@modelgate/processing';
import { mark, readChildConfig, reportResult } from '../child-process.js';
import { type QaWorkload, qaBodies, qaWindows } from '../qa-bodies.js';
import { type RawBatchResult, measureBatches, openRawSession } from './raw-session-loop.js';

/** Settings from the parent. */
export interface RawSessionRunConfig {
  fixtureDir: string;
  /** 0 = one thread per core. */
  intraOpThreads: number;
  /**
   * Whether the session spins within a run as the worker's solo session does: set for the one
   * session that stands for it (the c=1 floor when the deployment has a solo session).
   */
  spinWithinRuns?: boolean;
  batchSizes: number[];
  durationS: number;
  warmupS: number;
  sentences: string[];
  /**
   * The question-answering workload over the sentences: batches are then consecutive slices of
   * its windows, padded like the gateway pads, instead of encoded sentences.
   */
  questionAnswering?: QaWorkload;
  /**
   * One of several sessions measured side by side, each in its own process (the worker's
   * `instances`): before each batch size's warm-up the child prints `BENCH_MARK ready b<size>` and
   * waits for the parent's SIGUSR2, which the parent sends every sibling at once. No tokenization
   * timing (tokenizePerSec NaN).
   */
  sideBySide?: boolean;
}

export type { RawBatchResult };

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
const session = await openRawSession(
  join(config.fixtureDir, 'onnx', 'model.onnx'),
  config.intraOpThreads,
  config.spinWithinRuns === true,
);
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

/**
 * Waits for the parent's go (SIGUSR2) after saying `size` is ready; the listener is in place before
 * the mark. A signal listener holds no event loop open, so a timer does until the go.
 */
function sideBySideGate(size: number): Promise<void> {
  return new Promise((resolve) => {
    const keepAlive = setInterval(() => undefined, 60_000);
    process.once('SIGUSR2', () => {
      clearInterval(keepAlive);
      resolve();
    });
    mark(`ready b${size}`);
  });
}

const batches = await measureBatches(session, config.batchSizes, buildFeeds, {
  ...config,
  ...(config.sideBySide ? { gate: sideBySideGate } : {}),
});
const meanTokens = qaRows
  ? qaRows.reduce((sum, row) => sum + row.ids.length, 0) / qaRows.length
  : config.sentences.reduce((sum, text) => sum + tokenizer.encode(text).ids.length, 0) /
    config.sentences.length;
const result: RawSessionRunResult = {
  intraOpThreads: config.intraOpThreads,
  batches,
  meanTokens,
  tokenizePerSec: config.sideBySide ? NaN : timeTokenization(Math.min(2, config.durationS)),
};
await session.release();
reportResult(result);
