/**
 * A worker inside another process: a co-located gateway (GATEWAY_LOCAL_WORKER=true) starts one
 * here with the usual WORKER_* variables. It serves gRPC, heartbeats and reports like any worker,
 * so the fleet (other gateways, `modelgate status`) sees it as one; the gateway of its own
 * process reaches it through `endpoint`, in-process. The process owner stops it (no signal
 * handlers are installed here).
 */
import { createLogger } from '@modelgate/observability';
import { loadWorkerConfig } from './worker.config.js';
import { type RunningWorkerApp, startWorkerApp } from './worker-app.js';

export type { RunningWorkerApp } from './worker-app.js';

/** Starts a worker configured by `env`'s WORKER_* variables (and REGISTRY_URL, REDIS_URL…). */
export function startEmbeddedWorker(env: NodeJS.ProcessEnv = process.env): Promise<RunningWorkerApp> {
  const config = loadWorkerConfig(env);
  return startWorkerApp(config, createLogger({ app: 'worker', level: config.WORKER_LOG_LEVEL }));
}
