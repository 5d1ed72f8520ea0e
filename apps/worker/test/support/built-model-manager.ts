import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LoadRetryPolicy } from '@modelgate/config-sync';
import { type ConfigSnapshot, parseConfigSnapshot } from '@modelgate/contracts';
import { writeSnapshot } from '@modelgate/testing';
import { createLogger } from '@modelgate/observability';
import type * as Manager from '../../src/model-loading/model-manager.js';
import type * as Metrics from '../../src/metrics/worker-metrics.js';

// The built worker (npm test builds first): each session thread is a compiled module of its own.
// Imported by paths held in variables so that typechecking does not need a build.
const builtManager = '../../dist/model-loading/model-manager.js';
const builtMetrics = '../../dist/metrics/worker-metrics.js';

export type ModelManager = Manager.ModelManager;

export type WorkerMetrics = Metrics.WorkerMetrics;

/**
 * Settings a test may change; by default a solo session on its own thread (the worker runs it
 * inline by default: `inline` opts in), two cores and metrics of its own.
 */
export interface TestManagerOptions {
  soloSession?: boolean;
  /** WORKER_INLINE and WORKER_INLINE_MAX_MS (as µs). @defaultValue off */
  inline?: { maxMicros: number };
  /** WORKER_SOLO_SPINNING. @defaultValue true, as the worker's default */
  soloSpinning?: boolean;
  cores?: number;
  metrics?: WorkerMetrics;
  /** ModelManagerDeps.unloadGraceMs. @defaultValue 0 */
  unloadGraceMs?: number;
}

/** Makes a ModelManager of the built worker for group `default`, on CPU, logging nothing. */
export type ModelManagerFactory = (
  fetcher: Manager.ArtifactFetcher,
  retry: LoadRetryPolicy,
  options?: TestManagerOptions,
) => ModelManager;

/** Imports the built worker's ModelManager and returns a factory for test managers. */
export async function builtModelManagers(): Promise<ModelManagerFactory> {
  const { ModelManager } = (await import(builtManager)) as typeof Manager;
  const { WorkerMetrics } = (await import(builtMetrics)) as typeof Metrics;
  return (fetcher, retry, options = {}) =>
    new ModelManager({
      workerGroup: 'default',
      retry,
      // Unloads at once unless a test asks for a grace period.
      unloadGraceMs: options.unloadGraceMs ?? 0,
      gpu: { deviceId: 0 },
      soloSession: options.soloSession ?? true,
      soloSpinning: options.soloSpinning ?? true,
      inline: { enabled: options.inline !== undefined, maxMicros: options.inline?.maxMicros ?? 0 },
      cores: options.cores ?? 2,
      fetcher,
      metrics: options.metrics ?? new WorkerMetrics(),
      logger: createLogger({ app: 'worker-test', level: 'silent' }),
    });
}

/** A WorkerMetrics of the built worker, to hand a test manager and read back. */
export async function builtWorkerMetrics(): Promise<WorkerMetrics> {
  const { WorkerMetrics } = (await import(builtMetrics)) as typeof Metrics;
  return new WorkerMetrics();
}

/** Drains and releases a test manager's sessions. */
export async function stopModelManager(manager: ModelManager | undefined): Promise<void> {
  await manager?.drainAll(1000);
  await manager?.releaseAll();
}

/**
 * A config snapshot of `models` written to a new temporary directory (named after `prefix`), read
 * back, with the first model's artifact path, which test managers' fetchers answer.
 */
export async function fixtureSnapshot(
  prefix: string,
  models: Parameters<typeof writeSnapshot>[1],
): Promise<{ base: ConfigSnapshot; modelPath: string }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const path = await writeSnapshot(dir, models);
  const base = parseConfigSnapshot(JSON.parse(await readFile(path, 'utf8')));
  return { base, modelPath: base.models[0]!.artifact.uri.replace('file://', '') };
}

/** One tokenized sentence, [1, 6], as the gateway sends it. */
export const sentence = () => {
  const row = (values: bigint[]) => ({
    datatype: 'INT64',
    dims: [1, values.length],
    data: BigInt64Array.from(values),
  });
  return {
    input_ids: row([101n, 1045n, 2293n, 2023n, 3185n, 102n]),
    attention_mask: row([1n, 1n, 1n, 1n, 1n, 1n]),
    token_type_ids: row([0n, 0n, 0n, 0n, 0n, 0n]),
  };
};
