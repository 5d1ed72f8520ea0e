/**
 * Chunked prefill (issue 41): the inter-token latency of short sequences that are decoding while
 * 2048-token prompts arrive, with the worker's chunked prefill (WORKER_PREFILL_CHUNK_TOKENS, its
 * default) and without it (0), in the same run on the same cores. Each round starts one worker per
 * mode in turn (the order alternates per round) and runs the same scenario over gRPC ModelGenerate:
 * SHORT_STREAMS greedy sequences decode; once each has its first token, LONG_PROMPTS long prompts
 * arrive one after the other (the next when the previous has its first token). The window is from
 * the first long prompt's arrival to the last one's first token; every gap between two tokens of a
 * short sequence that ends inside it is a sample. Also reported: the long prompts' time to first
 * token (slicing trades some of it for the running sequences' latency).
 */
import { type ClientReadableStream } from '@grpc/grpc-js';
import { DEFAULT_PREFILL_CHUNK_TOKENS } from '@modelgate/generation';
import { ensureFixture } from '@modelgate/fixtures';
import { type Message } from '@modelgate/testing';
import { type BenchOptions } from './bench-options.js';
import { type ControlPlane, type Deployment } from './control-plane.js';
import { type WorkerNode, startWorkerNode } from './modelgate-stack.js';
import { type LatencySummary, type Spread, spreadOf, summarizeLatencies } from './stats.js';

const FIXTURE = 'gpt2-long-context';
const LONG_TOKENS = 2048;
const LONG_PROMPTS = 3;
const SHORT_STREAMS = 4;
const SHORT_TOKENS = 16;
/** Enough new tokens that every short sequence decodes through the whole window; cancelled after it. */
const SHORT_NEW_TOKENS = 1500;
const LONG_NEW_TOKENS = 4;

/** The two modes: the worker's default slices and whole prompts. */
export const PREFILL_MODES = [
  { mode: 'chunked', chunkTokens: DEFAULT_PREFILL_CHUNK_TOKENS },
  { mode: 'whole', chunkTokens: 0 },
] as const;

/** One mode in one round. */
export interface PrefillRun {
  mode: (typeof PREFILL_MODES)[number]['mode'];
  chunkTokens: number;
  /** Gaps between tokens of the short sequences within the window, ms. */
  interToken: LatencySummary & { samples: number };
  /** Each long prompt's time from its arrival to its first token, ms. */
  longFirstTokenMs: number[];
  windowMs: number;
}

export interface PrefillResult {
  fixture: string;
  scenario: {
    shortStreams: number;
    shortPromptTokens: number;
    longPrompts: number;
    longPromptTokens: number;
  };
  rounds: PrefillRun[][];
  /** Medians over the rounds, per mode. */
  summary: Record<string, { p50: Spread; p99: Spread; max: Spread; longFirstTokenMs: Spread }>;
}

function prefillDeployment(options: BenchOptions): Deployment {
  return {
    fixture: FIXTURE,
    model: 'gpt2long',
    workerGroup: 'prefill',
    task: 'text-generation',
    // Room for the short sequences and a long one together: the cache is padded to the longest row.
    batching: { maxBatchSize: 8, maxBatchTokens: 8 * 2304, defaultTimeoutMs: 300_000 },
    intraOpThreads: options.intraOpThreads,
    instances: 1,
  };
}

/** Token ids of a prompt: deterministic, different per `salt`, within GPT-2's vocabulary. */
function promptIds(length: number, salt: number): number[] {
  return Array.from({ length }, (_, i) => 200 + ((i * 7919 + salt * 104729) % 40000));
}

const generate = (worker: WorkerNode, ids: number[], maxNewTokens: number): ClientReadableStream<Message> =>
  worker.running.client.stream('ModelGenerate', {
    model_name: worker.deployment.model,
    input_ids: ids,
    max_new_tokens: maxNewTokens,
  });

/** Resolves at the stream's first message (rejects if it fails first). */
function firstMessage(stream: ClientReadableStream<Message>): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once('data', () => resolve());
    stream.once('error', reject);
  });
}

/** One run of the scenario on a worker. */
async function runScenario(worker: WorkerNode): Promise<Omit<PrefillRun, 'mode' | 'chunkTokens'>> {
  // Unmeasured: one long prompt and one short sequence, so both paths have run once.
  await firstMessage(generate(worker, promptIds(LONG_TOKENS, 99), 1));
  const arrivals: number[][] = [];
  const shorts = Array.from({ length: SHORT_STREAMS }, (_, index) => {
    const times: number[] = [];
    arrivals.push(times);
    const stream = generate(worker, promptIds(SHORT_TOKENS, index), SHORT_NEW_TOKENS);
    stream.on('data', () => times.push(performance.now()));
    stream.on('error', () => undefined); // cancelled at the end
    return stream;
  });
  await Promise.all(shorts.map(firstMessage));
  const start = performance.now();
  const longFirstTokenMs: number[] = [];
  for (let index = 0; index < LONG_PROMPTS; index += 1) {
    const sent = performance.now();
    await firstMessage(generate(worker, promptIds(LONG_TOKENS, index + 10), LONG_NEW_TOKENS));
    longFirstTokenMs.push(performance.now() - sent);
  }
  const end = performance.now();
  for (const stream of shorts) stream.cancel();
  const gaps = arrivals.flatMap((times) =>
    times.flatMap((at, i) => (i > 0 && at > start && at <= end ? [at - times[i - 1]!] : [])),
  );
  return {
    interToken: { ...summarizeLatencies(gaps), samples: gaps.length },
    longFirstTokenMs,
    windowMs: end - start,
  };
}

/** Runs the suite: `options.repeats` rounds of both modes. */
export async function runPrefillSuite(options: BenchOptions, plane: ControlPlane): Promise<PrefillResult> {
  await ensureFixture(FIXTURE);
  const deployment = prefillDeployment(options);
  const rounds: PrefillRun[][] = [];
  for (let round = 0; round < options.repeats; round += 1) {
    const modes = round % 2 === 0 ? PREFILL_MODES : [...PREFILL_MODES].reverse();
    const runs: PrefillRun[] = [];
    for (const { mode, chunkTokens } of modes) {
      const worker = await startWorkerNode(plane, deployment, {
        env: { WORKER_PREFILL_CHUNK_TOKENS: String(chunkTokens) },
      });
      try {
        const run = { mode, chunkTokens, ...(await runScenario(worker)) };
        runs.push(run);
        process.stdout.write(
          `prefill round ${round + 1} ${mode}: inter-token p50 ${run.interToken.p50.toFixed(1)} ms ` +
            `p99 ${run.interToken.p99.toFixed(1)} ms max ${run.interToken.max.toFixed(1)} ms ` +
            `(${run.interToken.samples} gaps); long prompts' first token ${run.longFirstTokenMs
              .map((ms) => ms.toFixed(0))
              .join(', ')} ms\n`,
        );
      } finally {
        await worker.stop();
      }
    }
    rounds.push(runs);
  }
  const of = (mode: string) => rounds.flat().filter((run) => run.mode === mode);
  const summary = Object.fromEntries(
    PREFILL_MODES.map(({ mode }) => [
      mode,
      {
        p50: spreadOf(of(mode).map((run) => run.interToken.p50)),
        p99: spreadOf(of(mode).map((run) => run.interToken.p99)),
        max: spreadOf(of(mode).map((run) => run.interToken.max)),
        longFirstTokenMs: spreadOf(of(mode).map((run) => spreadOf(run.longFirstTokenMs).median)),
      },
    ]),
  );
  return {
    fixture: FIXTURE,
    scenario: {
      shortStreams: SHORT_STREAMS,
      shortPromptTokens: SHORT_TOKENS,
      longPrompts: LONG_PROMPTS,
      longPromptTokens: LONG_TOKENS,
    },
    rounds,
    summary,
  };
}
