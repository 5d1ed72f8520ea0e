/**
 * modelgate as it runs in production, one process per part: the control plane publishes the
 * config, a worker serves the model over gRPC, a gateway serves /serve/<endpoint>. The gateway can
 * be restarted alone with another GATEWAY_WORKERS (the multi-core comparison).
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type RunningGateway,
  type RunningWorker,
  freePort,
  metricValue,
  startGateway,
  startWorkerWithSnapshot,
} from '@modelgate/testing';
import { type Deployment, type PublishedConfig, type RegistryMode, publishConfig } from './control-plane.js';

/** Worker-side totals from its /metrics, for per-step deltas. */
export interface WorkerCounters {
  requests: number;
  batches: number;
  rows: number;
  queueSeconds: number;
  computeSeconds: number;
}

/** A running modelgate. */
export interface ModelgateStack {
  readonly deployment: Deployment;
  readonly config: PublishedConfig;
  readonly worker: RunningWorker;
  gateway: RunningGateway;
  gatewayWorkers: string;
  /** Replaces the gateway with one running `workers` event loops. */
  restartGateway(workers: string): Promise<void>;
  workerCounters(): Promise<WorkerCounters>;
  stop(): Promise<void>;
}

const QUIET_LOGS = { GATEWAY_LOG_LEVEL: 'warn', WORKER_LOG_LEVEL: 'warn' };

/** Starts control plane, worker and gateway (GATEWAY_WORKERS=`gatewayWorkers`). */
export async function startModelgate(
  deployment: Deployment,
  options: { gatewayWorkers: string; registry: RegistryMode },
): Promise<ModelgateStack> {
  const dir = await mkdtemp(join(tmpdir(), 'modelgate-bench-'));
  const grpcPort = await freePort();
  const workerAddress = `127.0.0.1:${grpcPort}`;
  const config = await publishConfig(dir, deployment, workerAddress, options.registry);
  const worker = await startWorkerWithSnapshot(config.snapshotPath, {
    WORKER_GRPC_PORT: String(grpcPort),
    WORKER_TEST_HOOKS: 'false',
    WORKER_LOG_LEVEL: QUIET_LOGS.WORKER_LOG_LEVEL,
  });
  const launchGateway = (workers: string) =>
    startGateway(config.snapshotPath, {
      GATEWAY_WORKERS: workers,
      GATEWAY_LOG_LEVEL: QUIET_LOGS.GATEWAY_LOG_LEVEL,
      GATEWAY_DOCS: 'false',
    });
  const modelId = `${deployment.model}:1`;
  const stack: ModelgateStack = {
    deployment,
    config,
    worker,
    gateway: await launchGateway(options.gatewayWorkers),
    gatewayWorkers: options.gatewayWorkers,
    async restartGateway(workers) {
      await stack.gateway.stop();
      stack.gateway = await launchGateway(workers);
      stack.gatewayWorkers = workers;
    },
    async workerCounters() {
      const text = await worker.metrics();
      const labels = { model: modelId };
      return {
        requests: metricValue(text, 'modelgate_inference_requests_total', { ...labels, status: 'ok' }),
        batches: metricValue(text, 'modelgate_batch_size_count', labels),
        rows: metricValue(text, 'modelgate_batch_size_sum', labels),
        queueSeconds: metricValue(text, 'modelgate_queue_duration_seconds_sum', labels),
        computeSeconds: metricValue(text, 'modelgate_compute_duration_seconds_sum', labels),
      };
    },
    async stop() {
      await stack.gateway.stop();
      await worker.stop();
      await config.stop();
    },
  };
  return stack;
}
