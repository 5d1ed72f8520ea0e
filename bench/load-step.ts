/**
 * One load step: a load-generator child at one concurrency against one system, with the CPU of
 * every party (server processes, the load generator, the rest of the machine) and the worker's
 * batching counters taken over exactly the measured window (the child marks its start and end).
 */
import { childScript, spawnChild } from './child-process.js';
import { type ProfileWindow } from './cpu-profile-summary.js';
import { type GrpcLoadConfig } from './children/grpc-load.js';
import { type HttpLoadConfig } from './children/http-load.js';
import { type SseLoadConfig } from './children/sse-load.js';
import { type LoadResult } from './load-result.js';
import { type WorkerCounters } from './modelgate-stack.js';
import {
  type CpuUsage,
  NOISY_OTHER_CORES,
  otherCores,
  startCpuMeter,
  waitForQuietMachine,
} from './process-cpu.js';

/** Worker batching over one step (deltas of its /metrics). */
export interface WorkerStepStats {
  batches: number;
  /** Mean rows per model run. */
  meanBatchRows: number;
  /** Mean time a row waited in the batcher, ms. */
  meanQueueMs: number;
  /** Mean onnxruntime time per batch, ms. */
  meanComputeMsPerBatch: number;
  /** Real tokens of the rows batched (modelgate_batch_tokens_total kind=real); absent without that counter. */
  realTokens?: number;
  /** Tokens the model computed: rows × padded length per batch (kind=computed); absent as above. */
  computedTokens?: number;
  /** Batches run on the solo session (modelgate_solo_batches_total); absent without that counter. */
  soloBatches?: number;
}

/** One measured step. */
export interface StepResult {
  /** What was measured, e.g. `modelgate`, `naive`, `worker`, `modelgate (GATEWAY_WORKERS=1)`. */
  system: string;
  load: LoadResult;
  cpu: CpuUsage;
  /** Cores' worth of CPU used by processes outside the bench during the step. */
  otherCores: number;
  /** 2 when the first attempt was noisy and the step was measured again. */
  attempts: number;
  worker?: WorkerStepStats;
  /** Deltas of StepProbes.counters over the measured window. */
  counterDeltas?: Record<string, number>;
  /** The measured window on CLOCK_MONOTONIC in µs (V8's profile clock), as this process saw the marks. */
  window: ProfileWindow;
}

/** What a step measures besides the load result. */
export interface StepProbes {
  /** Server processes by party name → root pid (a clustered gateway's workers are its children). */
  parties: Record<string, number>;
  /** The worker's counters, when a modelgate worker serves the step. */
  workerCounters?: () => Promise<WorkerCounters>;
  /** Leave the step's line unprinted (the caller prints its own). */
  silent?: boolean;
  /** Named counters read at the start and the end of the measured window; the step keeps their deltas. */
  counters?: () => Promise<Record<string, number>>;
}

/** A load generator: which child, its settings, and optionally the cores it is pinned to. */
export type LoadChild = (
  | { kind: 'http'; config: HttpLoadConfig }
  | { kind: 'grpc'; config: GrpcLoadConfig }
  | { kind: 'sse'; config: SseLoadConfig }
) & {
  cpuList?: string;
};

/** The child script of each kind of load generator. */
const LOAD_SCRIPTS: Record<LoadChild['kind'], string> = {
  http: 'http-load.ts',
  grpc: 'grpc-load.ts',
  sse: 'sse-load.ts',
};

const nowMicros = (): number => Number(process.hrtime.bigint() / 1000n);

/** Runs one load child and measures around its measured window. */
async function measureOnce(system: string, load: LoadChild, probes: StepProbes): Promise<StepResult> {
  const script = childScript(LOAD_SCRIPTS[load.kind]);
  const child = spawnChild(script, load.config, load.cpuList === undefined ? {} : { cpuList: load.cpuList });
  await child.marked('measuring');
  const fromMicros = nowMicros();
  const meter = startCpuMeter({ ...probes.parties, 'load generator': child.pid });
  const countersBefore = await probes.workerCounters?.();
  const namedBefore = await probes.counters?.();
  await child.marked('measured');
  const cpu = meter.stop();
  const toMicros = nowMicros();
  const countersAfter = await probes.workerCounters?.();
  const namedAfter = await probes.counters?.();
  const result = (await child.result) as LoadResult;
  const step: StepResult = {
    system,
    load: result,
    cpu,
    otherCores: otherCores(cpu),
    attempts: 1,
    window: { fromMicros, toMicros },
  };
  if (countersBefore && countersAfter) step.worker = workerStats(countersBefore, countersAfter);
  if (namedBefore && namedAfter) {
    step.counterDeltas = Object.fromEntries(
      Object.entries(namedAfter).map(([name, value]) => [name, value - (namedBefore[name] ?? 0)]),
    );
  }
  return step;
}

/**
 * Runs one step; when processes outside the bench used more than NOISY_OTHER_CORES meanwhile, waits
 * for a quiet moment and measures once more, keeping the quieter attempt.
 */
export async function runLoadStep(system: string, load: LoadChild, probes: StepProbes): Promise<StepResult> {
  let step = await measureOnce(system, load, probes);
  if (step.otherCores > NOISY_OTHER_CORES) {
    process.stdout.write(
      `  ${system} c=${step.load.concurrency}: other processes used ${step.otherCores.toFixed(2)} cores; measuring again\n`,
    );
    await waitForQuietMachine(30_000);
    const again = await measureOnce(system, load, probes);
    step = again.otherCores < step.otherCores ? again : step;
    step.attempts = 2;
  }
  if (!probes.silent) printStep(step);
  return step;
}

function printStep(step: StepResult): void {
  const { load } = step;
  const stages = Object.entries(load.stages.meanMs)
    .map(([stage, ms]) => `${stage} ${ms.toFixed(2)}`)
    .join(', ');
  process.stdout.write(
    `  ${step.system.padEnd(28)} c=${String(load.concurrency).padStart(3)}  ` +
      `${load.throughput.toFixed(1).padStart(7)} infer/s  p50 ${load.latency.p50.toFixed(2)}  ` +
      `p90 ${load.latency.p90.toFixed(2)}  p99 ${load.latency.p99.toFixed(2)} ms  ` +
      `failed ${load.non2xx + load.errors}  other ${step.otherCores.toFixed(2)} cores` +
      `${stages ? `  [${stages}]` : ''}\n`,
  );
}

function workerStats(before: WorkerCounters, after: WorkerCounters): WorkerStepStats {
  const batches = after.batches - before.batches;
  const rows = after.rows - before.rows;
  const delta = (a: number | undefined, b: number | undefined) =>
    a !== undefined && b !== undefined ? { value: a - b } : undefined;
  const real = delta(after.realTokens, before.realTokens);
  const computed = delta(after.computedTokens, before.computedTokens);
  const solo = delta(after.soloBatches, before.soloBatches);
  return {
    batches,
    meanBatchRows: batches > 0 ? rows / batches : NaN,
    // The worker observes queue time per row (a merged call's rows wait alone in its batcher).
    meanQueueMs: rows > 0 ? ((after.queueSeconds - before.queueSeconds) * 1000) / rows : NaN,
    meanComputeMsPerBatch:
      batches > 0 ? ((after.computeSeconds - before.computeSeconds) * 1000) / batches : NaN,
    ...(real ? { realTokens: real.value } : {}),
    ...(computed ? { computedTokens: computed.value } : {}),
    ...(solo ? { soloBatches: solo.value } : {}),
  };
}
