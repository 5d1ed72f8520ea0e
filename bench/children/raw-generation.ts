/**
 * The generation suite's two raw onnxruntime-node servers, in a process of their own: `c` clients
 * in a closed loop (each sends its next request when its last one ends) take the step's requests
 * in order and hand them to an in-process server that is either
 * - `one-at-a-time`: a FIFO queue, one greedy KV-cache loop after the other (batch of 1), or
 * - `static`: whatever waits (up to c) becomes one left-padded batch, which runs until its longest
 *   sequence ends; then the next batch starts.
 * A request's time to first token runs from when its client sent it (waits included) to the pick
 * of its first token. Per concurrency, one-at-a-time then static, each after a short warm-up
 * (static: one request per client; one-at-a-time: one request).
 */
import { loadTokenizerFromDir } from '@modelgate/processing';
import { readChildConfig, reportResult } from '../child-process.js';
import { type GenerationMode, type GenerationStepResult } from '../generation-results.js';
import {
  type GenerationRequest,
  type GenerationWorkloadSpec,
  generationWorkload,
} from '../generation-workload.js';
import { NOISY_OTHER_CORES, machineBusyCpuMs, waitForQuietMachine } from '../process-cpu.js';
import { type DecodeRow, RawDecoder } from '../raw-decoder.js';
import { summarizeLatencies } from '../stats.js';

/** Settings from the parent. */
export interface RawGenerationConfig {
  fixtureDir: string;
  /** 0 = one thread per core. */
  intraOpThreads: number;
  workload: GenerationWorkloadSpec;
  /** Requests of the measured step per concurrency (the workload's first n). */
  steps: { concurrency: number; requests: number }[];
  /** max_new_tokens of the warm-up requests (one per client). */
  warmupNewTokens: number;
}

/** What the child reports. */
export interface RawGenerationResult {
  steps: GenerationStepResult[];
}

type RawMode = Exclude<GenerationMode, 'modelgate'>;

interface Timed {
  request: GenerationRequest;
  sentAt: number;
  firstTokenAt?: number;
  endedAt?: number;
  generated: number;
  resolve: () => void;
}

/** Serves `requests` to `concurrency` closed-loop clients; returns every request's timings. */
async function serve(
  decoder: RawDecoder,
  mode: RawMode,
  concurrency: number,
  requests: readonly GenerationRequest[],
): Promise<{ timed: Timed[]; startedAt: number }> {
  const maxBatch = mode === 'static' ? concurrency : 1;
  const queue: Timed[] = [];
  const timed: Timed[] = [];
  let running = false;
  let next = 0;
  const startedAt = performance.now();

  const runQueue = async () => {
    while (queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      const rows: DecodeRow[] = batch.map((t) => t.request);
      await decoder.generate(rows, {
        firstToken: (row) => {
          const entry = batch[row];
          if (entry) entry.firstTokenAt = performance.now();
        },
        finished: (row, tokens) => {
          const entry = batch[row];
          if (!entry) return;
          entry.endedAt = performance.now();
          entry.generated = tokens.length;
          entry.resolve();
        },
      });
      // Let every client whose request just ended send its next one before the next batch forms.
      await new Promise((resolve) => setImmediate(resolve));
    }
    running = false;
  };

  const send = (request: GenerationRequest) =>
    new Promise<void>((resolve) => {
      const entry: Timed = { request, sentAt: performance.now(), generated: 0, resolve };
      timed.push(entry);
      queue.push(entry);
      if (!running) {
        // Start on the next turn of the event loop: requests sent together (all clients at the
        // start of a step) form one batch.
        running = true;
        setImmediate(() => void runQueue());
      }
    });

  const client = async () => {
    for (let i = next++; i < requests.length; i = next++) {
      const request = requests[i];
      if (request) await send(request);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return { timed, startedAt };
}

async function measure(
  decoder: RawDecoder,
  mode: RawMode,
  concurrency: number,
  requests: readonly GenerationRequest[],
): Promise<GenerationStepResult> {
  const machineBefore = machineBusyCpuMs();
  const ownBefore = process.cpuUsage();
  const { timed, startedAt } = await serve(decoder, mode, concurrency, requests);
  const endedAt = Math.max(...timed.map((t) => t.endedAt ?? 0));
  const wallMs = endedAt - startedAt;
  const own = process.cpuUsage(ownBefore);
  const ownMs = (own.user + own.system) / 1000;
  const generatedTokens = timed.reduce((sum, t) => sum + t.generated, 0);
  return {
    mode,
    concurrency,
    requests: timed.length,
    ok: timed.length,
    failed: 0,
    promptTokens: timed.reduce((sum, t) => sum + t.request.promptIds.length, 0),
    generatedTokens,
    shortRequests: timed.filter((t) => t.generated !== t.request.maxNewTokens).length,
    durationS: wallMs / 1000,
    tokensPerSec: generatedTokens / (wallMs / 1000),
    timeToFirstToken: summarizeLatencies(timed.map((t) => (t.firstTokenAt ?? NaN) - t.sentAt)),
    latency: summarizeLatencies(timed.map((t) => (t.endedAt ?? NaN) - t.sentAt)),
    cpuMs: { server: ownMs },
    otherCores: Math.max(0, machineBusyCpuMs() - machineBefore - ownMs) / wallMs,
    attempts: 1,
  };
}

const config = readChildConfig<RawGenerationConfig>();
const tokenizer = await loadTokenizerFromDir(config.fixtureDir);
const workload = generationWorkload(tokenizer, config.workload);
const decoder = await RawDecoder.load(config.fixtureDir, config.intraOpThreads);
const results: GenerationStepResult[] = [];
for (const { concurrency, requests } of config.steps) {
  const stepRequests = workload.slice(0, requests);
  const warmup = workload
    .slice(0, concurrency)
    .map((r) => ({ ...r, maxNewTokens: Math.min(r.maxNewTokens, config.warmupNewTokens) }));
  for (const mode of ['one-at-a-time', 'static'] as const) {
    // One request at a time only ever runs batches of one: one warm-up request does.
    await serve(decoder, mode, concurrency, mode === 'static' ? warmup : warmup.slice(0, 1));
    let step = await measure(decoder, mode, concurrency, stepRequests);
    if (step.otherCores > NOISY_OTHER_CORES) {
      await waitForQuietMachine(30_000);
      const again = await measure(decoder, mode, concurrency, stepRequests);
      step = { ...(again.otherCores < step.otherCores ? again : step), attempts: 2 };
    }
    results.push(step);
  }
}
await decoder.release();
const answer: RawGenerationResult = { steps: results };
reportResult(answer);
