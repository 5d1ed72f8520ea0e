import { type LoadRetryPolicy } from '@modelgate/config-sync';
import { createLogger } from '@modelgate/observability';
import type * as Manager from '../../src/model-loading/model-manager.js';
import type * as Metrics from '../../src/metrics/worker-metrics.js';

// The built worker (npm test builds first): each session thread is a compiled module of its own.
// Imported by paths held in variables so that typechecking does not need a build.
const builtManager = '../../dist/model-loading/model-manager.js';
const builtMetrics = '../../dist/metrics/worker-metrics.js';

export type ModelManager = Manager.ModelManager;

/** Makes a ModelManager of the built worker for group `default`, on CPU, logging nothing. */
export type ModelManagerFactory = (fetcher: Manager.ArtifactFetcher, retry: LoadRetryPolicy) => ModelManager;

/** Imports the built worker's ModelManager and returns a factory for test managers. */
export async function builtModelManagers(): Promise<ModelManagerFactory> {
  const { ModelManager } = (await import(builtManager)) as typeof Manager;
  const { WorkerMetrics } = (await import(builtMetrics)) as typeof Metrics;
  return (fetcher, retry) =>
    new ModelManager({
      workerGroup: 'default',
      retry,
      gpu: { deviceId: 0 },
      fetcher,
      metrics: new WorkerMetrics(),
      logger: createLogger({ app: 'worker-test', level: 'silent' }),
    });
}

/** Drains and releases a test manager's sessions. */
export async function stopModelManager(manager: ModelManager | undefined): Promise<void> {
  await manager?.drainAll(1000);
  await manager?.releaseAll();
}
