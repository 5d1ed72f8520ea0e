/**
 * The raw reference in the worker's layout: a worker with `instances` sessions runs that many
 * session.run calls at once, each on ⌊cores ÷ instances⌋ intra-op threads. Here that is as many
 * raw-session-run processes, started together; every batch size is begun by all of them at the
 * same moment (each says it is ready, then the parent signals them all) and their figures are
 * combined per batch size.
 */
import { type RawSideBySide } from './bench-results.js';
import { type SpawnOptions, childScript, spawnChild } from './child-process.js';
import {
  type RawBatchResult,
  type RawSessionRunConfig,
  type RawSessionRunResult,
} from './children/raw-session-run.js';
import { NOISY_OTHER_CORES, waitForQuietMachine } from './process-cpu.js';

/** Runs `sessions` raw children over `config.batchSizes`, each batch size started by all at once. */
async function runTogether(
  sessions: number,
  config: RawSessionRunConfig,
  spawnOptions: SpawnOptions,
): Promise<RawSessionRunResult[]> {
  const children = Array.from({ length: sessions }, () =>
    spawnChild(childScript('raw-session-run.ts'), { ...config, sideBySide: true }, spawnOptions),
  );
  try {
    for (const size of config.batchSizes) {
      // The child prints this mark (children/raw-session-run.ts) with its SIGUSR2 listener in place.
      await Promise.all(children.map((child) => child.marked(`ready b${size}`)));
      for (const child of children) child.child.kill('SIGUSR2');
    }
    return (await Promise.all(children.map((child) => child.result))) as RawSessionRunResult[];
  } finally {
    await Promise.all(children.map((child) => child.stop()));
  }
}

/** Cores' worth of CPU one session's own threads used over its timed pass. */
const ownCores = (b: RawBatchResult): number => (b.cpuMsPerRow * b.inferPerSec) / 1000;

/**
 * One batch size of every session as one figure: rows/s summed, CPU per row = all CPU ÷ all
 * rows, each latency percentile (and the max) the worse session's, the mean over all runs. Each
 * session counts its siblings as "other" processes; their own CPU is taken back out.
 */
export function combineSessions(parts: readonly RawBatchResult[]): RawBatchResult {
  const first = parts[0];
  if (first === undefined) throw new Error('no session to combine');
  const rows = (b: RawBatchResult) => b.runs * b.batchSize;
  const totalRows = parts.reduce((sum, b) => sum + rows(b), 0);
  const totalRuns = parts.reduce((sum, b) => sum + b.runs, 0);
  const worst = (pick: (b: RawBatchResult) => number) => Math.max(...parts.map(pick));
  const siblings = parts.reduce((sum, b) => sum + ownCores(b), 0);
  const other = parts.reduce((sum, b) => sum + (b.otherCores - (siblings - ownCores(b))), 0) / parts.length;
  return {
    batchSize: first.batchSize,
    runs: totalRuns,
    inferPerSec: parts.reduce((sum, b) => sum + b.inferPerSec, 0),
    latency: {
      p50: worst((b) => b.latency.p50),
      p90: worst((b) => b.latency.p90),
      p99: worst((b) => b.latency.p99),
      mean: parts.reduce((sum, b) => sum + b.latency.mean * b.runs, 0) / totalRuns,
      max: worst((b) => b.latency.max),
    },
    cpuMsPerRow: parts.reduce((sum, b) => sum + b.cpuMsPerRow * rows(b), 0) / totalRows,
    otherCores: Math.max(0, other),
    attempts: 1,
  };
}

/** Every batch size of `config`, the sessions' figures combined. */
async function measureOnce(
  sessions: number,
  config: RawSessionRunConfig,
  spawnOptions: SpawnOptions,
): Promise<RawBatchResult[]> {
  const results = await runTogether(sessions, config, spawnOptions);
  return config.batchSizes.map((size) =>
    combineSessions(results.map((r) => r.batches.find((b) => b.batchSize === size) ?? failed(size))),
  );
}

function failed(size: number): never {
  throw new Error(`a side-by-side raw session measured no batch ${size}`);
}

/**
 * Raw session.run as `sessions` sessions side by side of `config.intraOpThreads` threads each; a
 * batch size during which other processes used more than NOISY_OTHER_CORES is measured once more
 * (all sessions again) after a quiet moment, keeping the quieter pass.
 */
export async function measureSideBySide(
  sessions: number,
  config: RawSessionRunConfig,
  spawnOptions: SpawnOptions,
): Promise<RawSideBySide> {
  const batches = await measureOnce(sessions, config, spawnOptions);
  const noisy = batches.filter((b) => b.otherCores > NOISY_OTHER_CORES).map((b) => b.batchSize);
  if (noisy.length > 0) {
    await waitForQuietMachine(30_000);
    const again = await measureOnce(sessions, { ...config, batchSizes: noisy }, spawnOptions);
    for (const retry of again) {
      const index = batches.findIndex((b) => b.batchSize === retry.batchSize);
      const before = batches[index];
      if (before === undefined) continue;
      batches[index] = { ...(retry.otherCores < before.otherCores ? retry : before), attempts: 2 };
    }
  }
  return { sessions, intraOpThreads: config.intraOpThreads, batches };
}
