/**
 * Everything one bench run measured, written verbatim as the .json: per suite, every interleaved
 * round, so every ratio can be taken within one round and summarised over the rounds.
 */
import { type BenchOptions } from './bench-options.js';
import { type RawImageRunResult } from './children/raw-image-run.js';
import { type RawBatchResult, type RawSessionRunResult } from './children/raw-session-run.js';
import { type Deployment } from './control-plane.js';
import { type ProfileSummary } from './cpu-profile-summary.js';
import { type GenerationResult } from './generation-results.js';
import { type PrefillResult } from './prefill-suite.js';
import { type StepResult } from './load-step.js';
import { type Spread, spreadOf } from './stats.js';

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
  /** The deployment of the shared-cores stack (other suites say what they change). */
  deployment: Deployment;
  /** WORKER_SOLO_SESSION as the workers got it from the bench's environment. */
  soloSession?: string;
  /** How the config reached gateways and workers. */
  controlPlane?: { via: string; note: string };
  /** `git rev-parse --short HEAD` of the measured tree, noting uncommitted changes in apps/ or libs/. */
  commit?: string;
}

/** A layout of the raw reference: `sessions` processes side by side, `intraOpThreads` each (0 = one per core). */
export interface RawLayout {
  sessions: number;
  intraOpThreads: number;
}

/**
 * The worker's layout of `instances` sessions, as raw session.run: that many processes started
 * together, every batch size begun by all at once; per batch size rows/s summed, CPU per row =
 * all their CPU ÷ all their rows, each latency percentile the worse session's.
 */
export interface RawSideBySide extends RawLayout {
  batches: RawBatchResult[];
}

/**
 * Raw session.run over its batch sizes: one session with the ModelSpec's threads (`batches`) and,
 * when the deployment runs several instances, the worker's layout (`sideBySide`). `best` is the
 * highest rows/s over batch sizes and layouts (the throughput limit every "× raw best" divides
 * by), `bestLayout` the layout it came from.
 */
export type RawLimit = RawSessionRunResult & {
  best: RawBatchResult;
  bestLayout: RawLayout;
  sideBySide?: RawSideBySide;
};

/** One interleaved round on shared cores: raw, then naive, then modelgate, then the worker alone. */
export interface SharedRound {
  raw: RawLimit;
  naive?: StepResult[];
  /** modelgate distributed: gateway and worker processes. */
  modelgate?: StepResult[];
  /** modelgate co-located: the worker inside the gateway's process (GATEWAY_LOCAL_WORKER). */
  colocated?: StepResult[];
  workerOnly?: StepResult[];
}

/** The shared-cores comparison. */
export interface SharedResult {
  gatewayWorkers: string;
  rounds: SharedRound[];
}

/** One GATEWAY_WORKERS value within one round of the gateway suite. */
export interface GatewayRoundEntry {
  gatewayWorkers: string;
  /** Fixed-size step at c=8, for CPU per request. */
  cpuStep: StepResult;
  gatewayCpuMsPerRequest: number;
  /** c=32 throughput step. */
  clusterStep: StepResult;
}

/** Gateway CPU per request and GATEWAY_WORKERS 1 vs 2, alternating within each round. */
export interface GatewaySuiteResult {
  rounds: GatewayRoundEntry[][];
}

/** One round of the pinned split: raw on the worker's core, the worker alone at c=64, the gateway in front of it. */
export interface PinnedRound {
  raw: RawLimit;
  worker: StepResult;
  gateway: StepResult;
  /** Gateway CPU per request at the model's rate (the gateway step). */
  gatewayCpuMsPerRequest: number;
  /** The gateway alone on its core in front of a small model's worker: near the gateway's own limit. */
  capacity?: StepResult;
  capacityGatewayCpuMsPerRequest?: number;
}

/** The pinned split mode. */
export interface PinnedResult {
  workerCpus: string;
  gatewayCpus: string;
  concurrency: number;
  /** The capacity step's model and concurrency (absent in results from before it existed). */
  capacity?: { fixture: string; concurrency: number };
  /** Thread count per allowed-CPU list, read back from /proc after pinning (proof of the split). */
  affinity: { worker: Record<string, number>; gateway: Record<string, number> };
  rounds: PinnedRound[];
}

/** A mode this machine cannot run, and why. */
export interface Skipped {
  skipped: string;
}

/** One round of the mixed-length workload: the same texts against both workers. */
export interface MixedRound {
  modelgate: StepResult;
  padToLongest: StepResult;
}

/** Mixed-length padding waste: modelgate's length grouping vs FIFO batches padded to the longest. */
export interface MixedResult {
  concurrency: number;
  texts: { count: number; minTokens: number; maxTokens: number; meanTokens: number };
  /** batching.maxPaddingRatio of each worker (modelgate: the schema default when unset). */
  maxPaddingRatio: { modelgate: number | 'default'; padToLongest: number };
  rounds: MixedRound[];
}

/** Where one process's (or thread's) CPU went over one profiled step. */
export interface ProfiledThread {
  party: 'gateway' | 'worker';
  /** e.g. `gateway (2 processes)`, `worker main thread`, `worker thread 1`. */
  label: string;
  summary: ProfileSummary;
  /** Busy sampled ms per answered request. */
  cpuMsPerRequest: number;
}

/** The profile mode: one step per concurrency against a stack started with --cpu-prof. */
export interface ProfileResult {
  gatewayWorkers: string;
  /** Where the .cpuprofile files were left. */
  profileDir: string;
  steps: { step: StepResult; threads: ProfiledThread[] }[];
}

/** One issue 11 target checked against the run. */
export interface TargetCheck {
  target: string;
  /** The figure, as median (min–max) with its reference. */
  measured: string;
  /** undefined when the run lacks the numbers (n/a). */
  met: boolean | undefined;
  /** How far from the target, when missed. */
  shortBy?: string;
}

/** All numbers of one run. */
/** One question-answering round: raw session.run on the windows, then modelgate's ladder. */
export interface QaRound {
  raw: RawLimit;
  modelgate: StepResult[];
}

/** What the question-answering suite measured. */
export interface QaResult {
  fixture: string;
  /** Distinct request bodies the load cycles through. */
  bodies: number;
  meanContextTokens: number;
  windowTokens: number;
  docStride: number;
  /** Windows (rows) per request. */
  windowsPerRequest: number;
  rounds: QaRound[];
}

/** One image-classification round: raw session.run on the pixel values, then modelgate's ladder. */
export interface ImageRound {
  raw: RawImageRunResult & { best: RawBatchResult };
  modelgate: StepResult[];
}

/** What the image-classification suite measured. */
export interface ImageResult {
  fixture: string;
  /** The deployment's batching (maxBatchSize, preferredBatchSizes). */
  batching: Record<string, number | number[]>;
  images: { count: number; width: number; height: number; meanBytes: number };
  rounds: ImageRound[];
}

export interface BenchResults {
  meta: BenchMeta;
  shared?: SharedResult;
  gateway?: GatewaySuiteResult;
  pinned?: PinnedResult | Skipped;
  mixed?: MixedResult | Skipped;
  profile?: ProfileResult;
  qa?: QaResult;
  generation?: GenerationResult;
  prefill?: PrefillResult;
  image?: ImageResult;
  targets?: TargetCheck[];
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

/** The gateway's CPU (every process of it) per answered request over a step's measured window, ms. */
export function gatewayCpuMsPerRequest(step: StepResult): number {
  return (step.cpu.byParty.gateway ?? NaN) / step.load.ok;
}

/** The step at concurrency `c`, if measured. */
export function atConcurrency(steps: readonly StepResult[] | undefined, c: number): StepResult | undefined {
  return steps?.find((step) => step.load.concurrency === c);
}

/** Whether a mode ran or was skipped. */
export function wasSkipped<T extends object>(result: T | Skipped | undefined): result is Skipped {
  return result !== undefined && 'skipped' in result;
}

/** `figure` of every round where it exists, as a spread. */
export function overRounds<R>(rounds: readonly R[], figure: (round: R) => number | undefined): Spread {
  return spreadOf(rounds.map((round) => figure(round) ?? NaN));
}

/**
 * The round whose `figure` is the median (the lower middle for an even count): the one repeat a
 * descriptive table shows in full, so every cell of a row comes from one real measurement.
 */
export function medianRound<R>(
  rounds: readonly R[],
  figure: (round: R) => number | undefined,
): R | undefined {
  const ranked = rounds
    .map((round) => ({ round, value: figure(round) ?? NaN }))
    .filter((entry) => Number.isFinite(entry.value))
    .sort((a, b) => a.value - b.value);
  return ranked[Math.floor((ranked.length - 1) / 2)]?.round ?? rounds[0];
}

/** Padding waste of a worker step (computed ÷ real tokens), or undefined without the worker's token counters. */
export function paddingWaste(step: StepResult): number | undefined {
  const real = step.worker?.realTokens;
  const computed = step.worker?.computedTokens;
  return real !== undefined && computed !== undefined && real > 0 ? computed / real : undefined;
}

/**
 * The steps of one series (e.g. modelgate's ladder) as a table shows them: at each concurrency of
 * the first round, the repeat with the median throughput.
 */
export function medianSteps<R>(
  rounds: readonly R[],
  series: (round: R) => StepResult[] | undefined,
): StepResult[] {
  const first = rounds.map(series).find((steps) => steps !== undefined) ?? [];
  return first.flatMap((step) => {
    const c = step.load.concurrency;
    const repeats = rounds.flatMap((round) => {
      const found = atConcurrency(series(round), c);
      return found ? [found] : [];
    });
    const median = medianRound(repeats, (s) => s.load.throughput);
    return median ? [median] : [];
  });
}

/** Raw batch sizes as a table shows them: per batch size, the repeat with the median rows/s. */
export function medianRawBatches(
  rounds: readonly { raw: { batches: readonly RawBatchResult[] } }[],
): RawBatchResult[] {
  const sizes = rounds[0]?.raw.batches.map((b) => b.batchSize) ?? [];
  return sizes.flatMap((size) => {
    const repeats = rounds.flatMap((round) => round.raw.batches.filter((b) => b.batchSize === size));
    const median = medianRound(repeats, (b) => b.inferPerSec);
    return median ? [median] : [];
  });
}
