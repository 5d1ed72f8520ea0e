/**
 * Text generation (issues 17, 41): tokens/s and time to first token at concurrency 1, 8 and 32 for
 * the same requests served four ways on the same cores — modelgate's continuous batching
 * (registry, worker, gateway; streaming POST /serve/<endpoint>), a naive transformers.js server
 * (children/naive-generation-server.ts: one request at a time, tokens streamed), one request at a
 * time and static batching (both raw onnxruntime-node greedy loops with a KV cache,
 * children/raw-generation.ts). Each step is
 * a fixed list of requests (prompts of 8–64 tokens, max_new_tokens 16–128, greedy) taken by c
 * closed-loop clients. Interleaved rounds; the order of the three processes rotates per round.
 */
import { availableParallelism } from 'node:os';
import { loadTokenizerFromDir } from '@modelgate/processing';
import { ensureFixture } from '@modelgate/fixtures';
import { freePort, metricValue, waitFor } from '@modelgate/testing';
import { type BenchOptions } from './bench-options.js';
import { type RunningChild, childScript, runChild, spawnChild } from './child-process.js';
import { type NaiveGenerationServerConfig } from './children/naive-generation-server.js';
import { type RawGenerationConfig, type RawGenerationResult } from './children/raw-generation.js';
import { type SseLoadConfig, type SseLoadResult } from './children/sse-load.js';
import { type ControlPlane, type Deployment } from './control-plane.js';
import {
  type GenerationResult,
  type GenerationRound,
  type GenerationStepResult,
  type GenerationWorkerStats,
  printGenerationStep,
} from './generation-results.js';
import { type GenerationWorkloadSpec, generationWorkload, rangeOf } from './generation-workload.js';
import { runLoadStep } from './load-step.js';
import { type ModelgateStack, startModelgate } from './modelgate-stack.js';

/** Requests per step at each concurrency: each client sends several, every mode serves the same. */
const STEPS = [
  { concurrency: 1, requests: 4 },
  { concurrency: 8, requests: 16 },
  { concurrency: 32, requests: 32 },
];
/** --quick: a smoke run. */
const QUICK_STEPS = [
  { concurrency: 1, requests: 2 },
  { concurrency: 8, requests: 8 },
  { concurrency: 32, requests: 32 },
];
const WORKLOAD: Omit<GenerationWorkloadSpec, 'count'> = {
  seed: 17,
  promptTokens: { min: 8, max: 64 },
  maxNewTokens: { min: 16, max: 128 },
};
/** batching.defaultTimeoutMs of the deployment: a request's deadline, well past the slowest step's requests. */
const GENERATION_TIMEOUT_MS = 300_000;
/** Sequences decoding together unless --max-batch-size says otherwise (the schema's default). */
const GENERATION_MAX_BATCH_SIZE = 32;
/** max_new_tokens of the warm-up requests before each step (one per client). */
const WARMUP_NEW_TOKENS = 4;

/** The generation deployment: its own model, worker group and endpoint. */
export function generationDeployment(options: BenchOptions, fixture: string): Deployment {
  return {
    fixture,
    model: 'gpt2',
    workerGroup: 'generation',
    endpoint: 'generate',
    task: 'text-generation',
    // The default deadline (10 s) would cut the long requests of c=32 short; the raw loops have none.
    batching: {
      maxBatchSize: options.maxBatchSize ?? GENERATION_MAX_BATCH_SIZE,
      defaultTimeoutMs: GENERATION_TIMEOUT_MS,
    },
    intraOpThreads: options.intraOpThreads,
    instances: 1,
  };
}

/** The worker's generation counters (decode steps and their sequences, prefill and decode time). */
async function generationCounters(stack: ModelgateStack): Promise<Record<string, number>> {
  const text = await stack.worker.running.metrics();
  const labels = { model: stack.deployment.model, version: '1' };
  const steps = 'modelgate_generation_step_batch_size';
  const duration = 'modelgate_generation_step_duration_seconds';
  const value = (name: string, extra: Record<string, string> = {}) =>
    metricValue(text, name, { ...labels, ...extra });
  return {
    decodeSteps: value(`${steps}_count`),
    sequences: value(`${steps}_sum`),
    decodeSeconds: value(`${duration}_sum`, { phase: 'decode' }),
    decodeRuns: value(`${duration}_count`, { phase: 'decode' }),
    prefillSeconds: value(`${duration}_sum`, { phase: 'prefill' }),
    prefillRuns: value(`${duration}_count`, { phase: 'prefill' }),
  };
}

function workerStats(
  deltas: Record<string, number> | undefined,
  durationS: number,
): GenerationWorkerStats | undefined {
  if (deltas === undefined) return undefined;
  const d = (name: string) => deltas[name] ?? 0;
  return {
    decodeSteps: d('decodeSteps'),
    meanSequencesPerStep: d('sequences') / d('decodeSteps'),
    meanDecodeStepMs: (d('decodeSeconds') * 1000) / d('decodeRuns'),
    prefillRuns: d('prefillRuns'),
    meanPrefillMs: (d('prefillSeconds') * 1000) / d('prefillRuns'),
    modelBusy: (d('decodeSeconds') + d('prefillSeconds')) / durationS,
  };
}

/** Starts the naive transformers.js generation server on `fixtureDir` and waits until it answers. */
async function startNaiveGenerationServer(
  fixtureDir: string,
): Promise<{ url: string; process: RunningChild }> {
  const port = await freePort();
  const config: NaiveGenerationServerConfig = { fixtureDir, port };
  const server = spawnChild(childScript('naive-generation-server.ts'), config);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => (await fetch(`${url}/health`)).ok, {
      timeoutMs: 120_000,
      describe: () => server.output(),
    });
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { url, process: server };
}

/** One naive-server step: the same SSE load generator, the server's CPU metered over it. */
async function measureNaive(
  naive: { url: string; process: RunningChild },
  fixtureDir: string,
  workload: GenerationWorkloadSpec,
  step: { concurrency: number; requests: number },
): Promise<GenerationStepResult> {
  const config: SseLoadConfig = {
    url: naive.url,
    path: '/generate',
    fixtureDir,
    workload,
    concurrency: step.concurrency,
    requests: step.requests,
    warmupNewTokens: WARMUP_NEW_TOKENS,
    mode: 'naive',
  };
  const measured = await runLoadStep(
    'naive',
    { kind: 'sse', config },
    { parties: { server: naive.process.pid }, silent: true },
  );
  const { generation } = measured.load as SseLoadResult;
  return {
    ...generation,
    cpuMs: { ...measured.cpu.byParty },
    otherCores: measured.otherCores,
    attempts: measured.attempts,
  };
}

/** One modelgate step: the SSE load generator at `c`, CPU of every party metered over it. */
async function measureModelgate(
  stack: ModelgateStack,
  fixtureDir: string,
  workload: GenerationWorkloadSpec,
  step: { concurrency: number; requests: number },
): Promise<GenerationStepResult> {
  const config: SseLoadConfig = {
    url: stack.gateway.url,
    path: `/serve/${stack.deployment.endpoint ?? ''}`,
    fixtureDir,
    workload,
    concurrency: step.concurrency,
    requests: step.requests,
    warmupNewTokens: WARMUP_NEW_TOKENS,
  };
  const measured = await runLoadStep(
    'modelgate',
    { kind: 'sse', config },
    { parties: stack.parties(), silent: true, counters: () => generationCounters(stack) },
  );
  const { generation } = measured.load as SseLoadResult;
  const worker = workerStats(measured.counterDeltas, generation.durationS);
  return {
    ...generation,
    ...(worker ? { worker } : {}),
    cpuMs: { ...measured.cpu.byParty },
    otherCores: measured.otherCores,
    attempts: measured.attempts,
  };
}

export async function runGenerationSuite(
  options: BenchOptions,
  plane: ControlPlane,
): Promise<GenerationResult> {
  const fixture = options.generationFixture;
  const fixtureDir = await ensureFixture(fixture);
  const steps = options.quick ? QUICK_STEPS : STEPS;
  const workload: GenerationWorkloadSpec = {
    ...WORKLOAD,
    count: Math.max(...steps.map((s) => s.requests)),
  };
  const requests = generationWorkload(await loadTokenizerFromDir(fixtureDir), workload);
  const prompts = rangeOf(requests.map((r) => r.promptIds.length));
  const newTokens = rangeOf(requests.map((r) => r.maxNewTokens));
  const deployment = generationDeployment(options, fixture);
  // The worker's default (0): one intra-op thread per core for its one instance; raw gets the same count.
  const rawThreads = options.intraOpThreads > 0 ? options.intraOpThreads : availableParallelism();
  process.stdout.write(
    `generation: ${fixture}, prompts of ${prompts.min}–${prompts.max} tokens (mean ${prompts.mean.toFixed(1)}), ` +
      `max_new_tokens ${newTokens.min}–${newTokens.max} (mean ${newTokens.mean.toFixed(1)}), greedy; ` +
      `${steps.map((s) => `c=${s.concurrency}: ${s.requests} requests`).join(', ')}; ${options.repeats} rounds\n`,
  );
  let stack: ModelgateStack | undefined;
  let naive: { url: string; process: RunningChild } | undefined;
  try {
    naive = await startNaiveGenerationServer(fixtureDir);
    const naiveServer = naive;
    stack = await startModelgate(plane, deployment, {
      gatewayWorkers: options.gatewayWorkers,
      warmUpBody: { text: 'warm up', parameters: { max_new_tokens: 1 } },
    });
    const running = stack;
    const rounds: GenerationRound[] = [];
    for (let index = 0; index < options.repeats; index++) {
      process.stdout.write(`round ${index + 1}/${options.repeats}\n`);
      const measureRaw = async () => {
        const config: RawGenerationConfig = {
          fixtureDir,
          intraOpThreads: rawThreads,
          workload,
          steps,
          warmupNewTokens: WARMUP_NEW_TOKENS,
        };
        const raw = await runChild<RawGenerationResult>(childScript('raw-generation.ts'), config);
        raw.steps.forEach(printGenerationStep);
        return raw.steps;
      };
      const measureStack = async () => {
        const measured: GenerationStepResult[] = [];
        for (const step of steps) {
          const result = await measureModelgate(running, fixtureDir, workload, step);
          printGenerationStep(result);
          measured.push(result);
        }
        return measured;
      };
      const measureNaiveServer = async () => {
        const measured: GenerationStepResult[] = [];
        for (const step of steps) {
          const result = await measureNaive(naiveServer, fixtureDir, workload, step);
          printGenerationStep(result);
          measured.push(result);
        }
        return measured;
      };
      // Rotate which side goes first, so none always runs on a machine another just warmed.
      const sides = [measureRaw, measureStack, measureNaiveServer];
      const order = [...sides.slice(index % 3), ...sides.slice(0, index % 3)];
      const measuredSteps: GenerationStepResult[] = [];
      for (const measure of order) measuredSteps.push(...(await measure()));
      rounds.push({ steps: measuredSteps });
    }
    return {
      fixture,
      batching: deployment.batching as Record<string, number>,
      intraOpThreads: rawThreads,
      workload: { seed: workload.seed, promptTokens: prompts, maxNewTokens: newTokens },
      steps,
      rounds,
    };
  } finally {
    await stack?.stop();
    await naive?.process.stop();
  }
}
