/**
 * The measurement primitives every suite is built from, one step each: raw session.run over its
 * batch sizes, the naive server, an HTTP step against modelgate, a gRPC step against a worker
 * alone. Each prints one line per measured thing; suites decide the order (interleaved rounds).
 */
import { availableParallelism } from 'node:os';
import { freePort, waitFor } from '@modelgate/testing';
import { type BenchOptions } from './bench-options.js';
import { type RawLimit, bestBatch } from './bench-results.js';
import { type RunningChild, childScript, runChild, spawnChild } from './child-process.js';
import { type HttpLoadConfig } from './children/http-load.js';
import { type NaiveServerConfig } from './children/naive-server.js';
import {
  type RawBatchResult,
  type RawSessionRunConfig,
  type RawSessionRunResult,
} from './children/raw-session-run.js';
import { type StepResult, runLoadStep } from './load-step.js';
import { type ServingStack, type WorkerNode } from './modelgate-stack.js';
import { resolveIntraOpThreads, resolveSoloThreads } from '@modelgate/session-settings';
import { measureSideBySide } from './raw-side-by-side.js';
import { layoutLabel } from './report-format.js';
import { SENTENCES } from './sentences.js';

/** Where a raw sweep runs. */
export interface RawSweepSettings {
  batchSizes: number[];
  intraOpThreads: number;
  /** Cores to pin the raw process to (pinned split). */
  cpuList?: string;
  /** A prefix for its printed lines. */
  label: string;
  /** Run the question-answering windows of the sentences instead of the sentences. */
  questionAnswering?: RawSessionRunConfig['questionAnswering'];
  /**
   * The deployment's instances: above 1, raw is measured a second time in the worker's layout, as
   * that many sessions side by side with the worker's threads per session.
   */
  instances?: number;
}

/** `b1 281.2/s p50 3.40 ms · …  → best batch 32`, for the progress output. */
function sweepLine(batches: readonly RawBatchResult[], best: RawBatchResult): string {
  return `${batches
    .map((b) => `b${b.batchSize} ${b.inferPerSec.toFixed(1)}/s p50 ${b.latency.p50.toFixed(2)} ms`)
    .join(' · ')}  → best batch ${best.batchSize}`;
}

/**
 * (a) raw onnxruntime at every batch size, in its own process: one session and, when the
 * deployment runs several instances, as many sessions side by side; `best` is the best of both.
 */
export async function measureRawLimit(
  options: BenchOptions,
  fixtureDir: string,
  settings: RawSweepSettings,
): Promise<RawLimit> {
  const cores = availableParallelism();
  const sessions = settings.instances ?? 1;
  const config: RawSessionRunConfig = {
    fixtureDir,
    intraOpThreads: settings.intraOpThreads,
    batchSizes: settings.batchSizes,
    durationS: options.durationS,
    warmupS: Math.min(1, options.warmupS),
    sentences: [...SENTENCES],
    ...(settings.questionAnswering === undefined ? {} : { questionAnswering: settings.questionAnswering }),
  };
  // The one session stands for the worker's solo session where the deployment has one, and then
  // spins within a run as that session does (apps/worker session-options.ts).
  const spinWithinRuns = resolveSoloThreads(settings.intraOpThreads, sessions, cores) > 0;
  const raw = await runChild<RawSessionRunResult>(
    childScript('raw-session-run.ts'),
    { ...config, spinWithinRuns },
    settings.cpuList === undefined ? {} : { cpuList: settings.cpuList },
  );
  const single = bestBatch(raw.batches);
  if (!single) throw new Error('raw session.run measured no batch size');
  const singleLayout = { sessions: 1, intraOpThreads: settings.intraOpThreads };
  process.stdout.write(
    `  ${settings.label.padEnd(28)} ${layoutLabel(singleLayout, cores)}: ${sweepLine(raw.batches, single)}\n`,
  );
  if (sessions <= 1) return { ...raw, best: single, bestLayout: singleLayout };
  const sideBySide = await measureSideBySide(
    sessions,
    { ...config, intraOpThreads: resolveIntraOpThreads(settings.intraOpThreads, sessions, cores) },
    settings.cpuList === undefined ? {} : { cpuList: settings.cpuList },
  );
  const parallel = bestBatch(sideBySide.batches);
  if (!parallel) throw new Error('side-by-side raw session.run measured no batch size');
  const label = layoutLabel(sideBySide, cores);
  process.stdout.write(`  ${''.padEnd(28)} ${label}: ${sweepLine(sideBySide.batches, parallel)}\n`);
  const parallelWins = parallel.inferPerSec > single.inferPerSec;
  const best = parallelWins ? parallel : single;
  const bestLayout = parallelWins ? { sessions, intraOpThreads: sideBySide.intraOpThreads } : singleLayout;
  process.stdout.write(
    `  ${''.padEnd(28)} raw best: b${best.batchSize}, ${layoutLabel(bestLayout, cores)}\n`,
  );
  return { ...raw, best, bestLayout, sideBySide };
}

/** (b) a running naive server: Fastify + transformers.js pipeline per request. */
export interface NaiveServer {
  url: string;
  process: RunningChild;
}

/** Starts the naive server and waits until it answers. */
export async function startNaiveServer(fixtureDir: string): Promise<NaiveServer> {
  const port = await freePort();
  const config: NaiveServerConfig = { fixtureDir, port };
  const server = spawnChild(childScript('naive-server.ts'), config);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => (await fetch(`${url}/health`)).ok, {
      timeoutMs: 60_000,
      describe: () => server.output(),
    });
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { url, process: server };
}

/** The HTTP load generator's settings for one step. */
export function httpConfig(
  options: BenchOptions,
  url: string,
  path: string,
  concurrency: number,
  amount?: number,
): HttpLoadConfig {
  return {
    url,
    path,
    concurrency,
    durationS: options.durationS,
    warmupS: options.warmupS,
    sentences: [...SENTENCES],
    ...(amount !== undefined ? { amount } : {}),
  };
}

/** One HTTP step against the naive server. */
export function measureNaiveStep(
  options: BenchOptions,
  naive: NaiveServer,
  concurrency: number,
  amount?: number,
): Promise<StepResult> {
  return runLoadStep(
    'naive',
    { kind: 'http', config: httpConfig(options, naive.url, '/classify', concurrency, amount) },
    { parties: { 'naive server': naive.process.pid } },
  );
}

/** How an HTTP step against modelgate is run besides its concurrency. */
export interface ModelgateStepSettings {
  system: string;
  /** A fixed number of requests instead of the step duration. */
  amount?: number;
  /** Cores the load generator is pinned to. */
  loadCpuList?: string;
  /** Send question-answering bodies built from the bench sentences instead of `{text}`. */
  questionAnswering?: HttpLoadConfig['questionAnswering'];
  /** Send the image workload's JPEGs as raw bodies instead of `{text}`. */
  images?: HttpLoadConfig['images'];
}

/** One HTTP step against modelgate's /serve/<endpoint>. */
export function measureModelgateStep(
  options: BenchOptions,
  stack: ServingStack,
  concurrency: number,
  settings: ModelgateStepSettings,
): Promise<StepResult> {
  const path = `/serve/${stack.deployment.endpoint ?? ''}`;
  const config = {
    ...httpConfig(options, stack.gateway.url, path, concurrency, settings.amount),
    ...(settings.questionAnswering === undefined ? {} : { questionAnswering: settings.questionAnswering }),
    ...(settings.images === undefined ? {} : { images: settings.images }),
  };
  return runLoadStep(
    settings.system,
    {
      kind: 'http',
      config,
      ...(settings.loadCpuList === undefined ? {} : { cpuList: settings.loadCpuList }),
    },
    { parties: stack.parties(), workerCounters: () => stack.worker.counters() },
  );
}

/** How a gRPC step against a worker alone is run besides its concurrency. */
export interface WorkerStepSettings {
  system: string;
  /** Texts each call sends one of, in order (tokenized up front by the load generator). */
  texts?: readonly string[];
  loadCpuList?: string;
  /** The registry pid when one runs (it takes heartbeats during the step). */
  registryPid?: number;
  /** A fixed number of calls instead of the step duration. */
  amount?: number;
}

/** One step straight at a worker: OIP ModelInfer over gRPC with raw_input_contents. */
export function measureWorkerStep(
  options: BenchOptions,
  worker: WorkerNode,
  fixtureDir: string,
  concurrency: number,
  settings: WorkerStepSettings,
): Promise<StepResult> {
  const config = {
    address: worker.running.grpcAddress,
    model: worker.deployment.model,
    fixtureDir,
    concurrency,
    durationS: options.durationS,
    warmupS: options.warmupS,
    sentences: [...(settings.texts ?? SENTENCES)],
    ...(settings.amount !== undefined ? { amount: settings.amount } : {}),
  };
  const parties: Record<string, number> = { worker: worker.pid };
  if (settings.registryPid !== undefined) parties.registry = settings.registryPid;
  return runLoadStep(
    settings.system,
    {
      kind: 'grpc',
      config,
      ...(settings.loadCpuList === undefined ? {} : { cpuList: settings.loadCpuList }),
    },
    { parties, workerCounters: () => worker.counters() },
  );
}
