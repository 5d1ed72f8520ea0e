/**
 * Everything one bench run measured (written verbatim as the .json), and the issue 8 targets
 * checked against it.
 */
import { type BenchOptions } from './bench-options.js';
import { type RawBatchResult, type RawSessionRunResult } from './children/raw-session-run.js';
import { type Deployment } from './control-plane.js';
import { type StepResult } from './load-step.js';

/** The machine and settings of a run. */
export interface BenchMeta {
  startedAt: string;
  finishedAt?: string;
  host: string;
  cpuModel: string;
  cores: number;
  node: string;
  onnxruntime: string;
  /** 1-minute load average when the run started and ended. */
  loadAverage: { start: number; end?: number };
  options: Omit<BenchOptions, 'outDir'>;
  deployment: Deployment;
  /** How the config reached gateway and worker. */
  controlPlane?: { via: string; note: string };
  /** `git rev-parse --short HEAD` of the measured tree, with `+changes` when it had uncommitted ones. */
  commit?: string;
}

/** Gateway cost and the multi-core choice. */
export interface GatewaySuiteResult {
  /** Fixed-size steps at c=8, one per GATEWAY_WORKERS value, for CPU per request. */
  cpuSteps: { gatewayWorkers: string; step: StepResult; gatewayCpuMsPerRequest: number }[];
  /** c=32 throughput steps, one per GATEWAY_WORKERS value. */
  clusterSteps: { gatewayWorkers: string; step: StepResult }[];
  /** modelgate c=1 (gateway + worker) against raw batch 1. */
  c1?: { step: StepResult; rawBatch1P50Ms: number };
}

/** All numbers of one run. */
export interface BenchResults {
  meta: BenchMeta;
  raw?: RawSessionRunResult & { best: RawBatchResult };
  naive?: StepResult[];
  modelgate?: { gatewayWorkers: string; steps: StepResult[] };
  workerOnly?: StepResult[];
  gateway?: GatewaySuiteResult;
  targets?: TargetCheck[];
}

/** One issue 8 target: the rule, the numbers, met or missed. */
export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean;
}

/** The raw batch size with the highest rows/s. */
export function bestBatch(batches: readonly RawBatchResult[]): RawBatchResult | undefined {
  return batches.reduce<RawBatchResult | undefined>(
    (best, batch) => (best === undefined || batch.inferPerSec > best.inferPerSec ? batch : best),
    undefined,
  );
}

/** Requests that did not succeed: non-2xx answers plus connection errors (timeouts included). */
export function failedRequests(step: StepResult): number {
  return step.load.non2xx + step.load.errors;
}

const fmt = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

function atConcurrency(steps: readonly StepResult[] | undefined, c: number): StepResult | undefined {
  return steps?.find((step) => step.load.concurrency === c);
}

/** The issue 8 targets, where the run has the numbers they need. */
export function checkTargets(results: BenchResults): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const raw = results.raw;
  const steps = results.modelgate?.steps;
  const rawB1 = raw?.batches.find((b) => b.batchSize === 1);
  const c1 = atConcurrency(steps, 1);
  if (rawB1 && c1) {
    const limit = rawB1.latency.p50 + 1.0;
    checks.push({
      target: 'c=1: modelgate p50 ≤ raw batch-1 p50 + 1.0 ms',
      measured: `${fmt(c1.load.latency.p50)} ms vs ${fmt(rawB1.latency.p50)} + 1.0 = ${fmt(limit)} ms`,
      met: c1.load.latency.p50 <= limit,
    });
  }
  const c128 = atConcurrency(steps, 128);
  if (raw && c128) {
    const ratio = c128.load.throughput / raw.best.inferPerSec;
    checks.push({
      target: 'c=128: modelgate throughput ≥ 0.85 × raw best batch',
      measured: `${fmt(c128.load.throughput, 1)} vs ${fmt(raw.best.inferPerSec, 1)} infer/s (batch ${raw.best.batchSize}) = ${fmt(ratio)}×`,
      met: ratio >= 0.85,
    });
  }
  const naive128 = atConcurrency(results.naive, 128);
  if (c128 && naive128) {
    const ratio = c128.load.throughput / naive128.load.throughput;
    checks.push({
      target: 'c=128: modelgate throughput ≥ 1.7 × naive',
      measured: `${fmt(c128.load.throughput, 1)} vs ${fmt(naive128.load.throughput, 1)} infer/s = ${fmt(ratio)}×`,
      met: ratio >= 1.7,
    });
  }
  const c32 = atConcurrency(steps, 32);
  if (c32) {
    const ratio = c32.load.latency.p99 / c32.load.latency.p50;
    checks.push({
      target: 'c=32: modelgate p99 ≤ 2.5 × p50',
      measured: `p99 ${fmt(c32.load.latency.p99)} / p50 ${fmt(c32.load.latency.p50)} ms = ${fmt(ratio)}×`,
      met: ratio <= 2.5,
    });
  }
  if (steps) {
    const failed = steps.map((s) => `c=${s.load.concurrency}: ${failedRequests(s)}`);
    checks.push({
      target: 'zero errors at every modelgate step',
      measured: failed.join(', '),
      met: steps.every((s) => failedRequests(s) === 0),
    });
  }
  return checks;
}
