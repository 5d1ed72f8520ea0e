/**
 * modelgate as it runs in production, one process per part: the control plane publishes a
 * deployment, a worker serves its model over gRPC, a gateway serves /serve/<endpoint>. A worker can
 * run alone (measured over gRPC); the gateway can be restarted with another GATEWAY_WORKERS (the
 * multi-core comparison). Parts can be pinned to cores and started with extra node flags.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRepoRoot } from '@modelgate/fixtures';
import {
  type RunningGateway,
  type RunningWorker,
  freePort,
  metricValue,
  startGateway,
  startWorkerWithSnapshot,
  waitFor,
} from '@modelgate/testing';
import { type ControlPlane, type Deployment, type NodeConfig } from './control-plane.js';
import { pinProcessTree } from './cpu-pinning.js';

/** Worker-side totals from its /metrics, for per-step deltas. */
export interface WorkerCounters {
  requests: number;
  batches: number;
  rows: number;
  queueSeconds: number;
  computeSeconds: number;
  /** modelgate_batch_tokens_total{kind="real"}: the rows' own tokens; undefined when the worker has no such counter. */
  realTokens?: number;
  /** modelgate_batch_tokens_total{kind="computed"}: rows × padded length; undefined as above. */
  computedTokens?: number;
  /** modelgate_solo_batches_total: batches run on the solo session; undefined without that counter. */
  soloBatches?: number;
}

/** How one process of the stack is started besides its config. */
export interface NodeOptions {
  /** Extra node flags (MODELGATE_NODE_ARGS), e.g. `--cpu-prof --cpu-prof-dir=<dir>`. */
  nodeArgs?: string;
  /** Cores to pin the process (every thread, its children included) to once it is up, e.g. `0`. */
  cpuList?: string;
  /** More environment of the process, e.g. a worker's WORKER_PREFILL_CHUNK_TOKENS. */
  env?: Record<string, string>;
}

/** A running worker of one deployment. */
export interface WorkerNode {
  readonly deployment: Deployment;
  /** `name:version` of its model (its metrics label the name `model` and the version `version`). */
  readonly modelId: string;
  readonly running: RunningWorker;
  readonly pid: number;
  readonly node: NodeConfig;
  counters(): Promise<WorkerCounters>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** A gateway serving /serve/<endpoint> of one deployment, and the counters of the worker behind it. */
export interface ServingStack {
  readonly deployment: Deployment;
  readonly worker: Pick<WorkerNode, 'counters'>;
  readonly gateway: RunningGateway;
  /** Root pid per party (gateway, worker, registry) for CPU meters. */
  parties(): Record<string, number>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** A running gateway + worker, each its own process. */
export interface ModelgateStack extends ServingStack {
  readonly worker: WorkerNode;
  gateway: RunningGateway;
  gatewayWorkers: string;
  /** Replaces the gateway with one running `workers` event loops. */
  restartGateway(workers: string): Promise<void>;
}

const QUIET_LOGS = { GATEWAY_LOG_LEVEL: 'warn', WORKER_LOG_LEVEL: 'warn' };

const nodeArgsEnv = (options: NodeOptions): Record<string, string> =>
  options.nodeArgs ? { MODELGATE_NODE_ARGS: options.nodeArgs } : {};

/** Starts a worker for `deployment` and waits until its model is ready (under live sync: followed and loaded). */
export async function startWorkerNode(
  plane: ControlPlane,
  deployment: Deployment,
  options: NodeOptions = {},
): Promise<WorkerNode> {
  const grpcPort = await freePort();
  const node = await plane.publish(deployment, `127.0.0.1:${grpcPort}`);
  const running = await startWorkerWithSnapshot(node.snapshotPath, {
    WORKER_GRPC_PORT: String(grpcPort),
    WORKER_TEST_HOOKS: 'false',
    WORKER_LOG_LEVEL: QUIET_LOGS.WORKER_LOG_LEVEL,
    ...node.workerEnv,
    ...nodeArgsEnv(options),
    ...options.env,
  });
  await waitFor(
    async () =>
      (await running.client.call<{ ready: boolean }>('ModelReady', { name: deployment.model, version: '1' }))
        .ready,
    { timeoutMs: 120_000, intervalMs: 200, describe: () => running.process.output().slice(-2000) },
  );
  const pid = running.process.child.pid ?? -1;
  if (options.cpuList !== undefined) pinProcessTree(pid, options.cpuList);
  const modelId = `${deployment.model}:1`;
  return {
    deployment,
    modelId,
    running,
    pid,
    node,
    counters: async () => workerCounters(await running.metrics(), deployment),
    async stop(signal) {
      await running.stop(signal);
    },
  };
}

/** The worker-side totals of `deployment`'s model in a worker's /metrics text. */
function workerCounters(text: string, deployment: Deployment): WorkerCounters {
  const labels = { model: deployment.model, version: '1' };
  const tokens = (kind: string) =>
    text.includes('modelgate_batch_tokens_total{')
      ? metricValue(text, 'modelgate_batch_tokens_total', { ...labels, kind })
      : undefined;
  const realTokens = tokens('real');
  const computedTokens = tokens('computed');
  const soloBatches = text.includes('# TYPE modelgate_solo_batches_total ')
    ? metricValue(text, 'modelgate_solo_batches_total', labels)
    : undefined;
  return {
    requests: metricValue(text, 'modelgate_inference_requests_total', { ...labels, status: 'ok' }),
    batches: metricValue(text, 'modelgate_batch_size_count', labels),
    rows: metricValue(text, 'modelgate_batch_size_sum', labels),
    queueSeconds: metricValue(text, 'modelgate_queue_duration_seconds_sum', labels),
    computeSeconds: metricValue(text, 'modelgate_compute_duration_seconds_sum', labels),
    ...(realTokens !== undefined ? { realTokens } : {}),
    ...(computedTokens !== undefined ? { computedTokens } : {}),
    ...(soloBatches !== undefined ? { soloBatches } : {}),
  };
}

/** What a stack is started with. */
export interface StackOptions {
  /** GATEWAY_WORKERS: `auto` (one event loop per core) or a count. */
  gatewayWorkers: string;
  worker?: NodeOptions;
  gateway?: NodeOptions;
  /** A body the endpoint answers 200 to once it serves. @defaultValue `{text: 'warm up'}` */
  warmUpBody?: unknown;
}

/** Starts a worker and a gateway for `deployment` (which must have an endpoint) and waits until it serves. */
export async function startModelgate(
  plane: ControlPlane,
  deployment: Deployment,
  options: StackOptions,
): Promise<ModelgateStack> {
  const endpoint = deployment.endpoint;
  if (endpoint === undefined) throw new Error(`deployment ${deployment.model} has no endpoint to serve`);
  const worker = await startWorkerNode(plane, deployment, options.worker);
  const gatewayOptions = options.gateway ?? {};
  const launchGateway = async (workers: string) => {
    const gateway = await startGateway(worker.node.snapshotPath, {
      GATEWAY_WORKERS: workers,
      GATEWAY_LOG_LEVEL: QUIET_LOGS.GATEWAY_LOG_LEVEL,
      GATEWAY_DOCS: 'false',
      ...worker.node.gatewayEnv,
      ...nodeArgsEnv(gatewayOptions),
    });
    // Under live sync the gateway knows the worker once discovery has read its heartbeat.
    await waitFor(
      async () =>
        (await gateway.post(`/serve/${endpoint}`, options.warmUpBody ?? { text: 'warm up' })).status === 200,
      {
        timeoutMs: 60_000,
        intervalMs: 200,
        describe: () => gateway.process.output().slice(-2000),
      },
    );
    if (gatewayOptions.cpuList !== undefined) {
      pinProcessTree(gateway.process.child.pid ?? -1, gatewayOptions.cpuList);
    }
    return gateway;
  };
  let gateway: RunningGateway;
  try {
    gateway = await launchGateway(options.gatewayWorkers);
  } catch (error) {
    await worker.stop();
    throw error;
  }
  const stack: ModelgateStack = {
    deployment,
    worker,
    gateway,
    gatewayWorkers: options.gatewayWorkers,
    async restartGateway(workers) {
      await stack.gateway.stop();
      stack.gateway = await launchGateway(workers);
      stack.gatewayWorkers = workers;
    },
    parties() {
      const parties: Record<string, number> = {
        gateway: stack.gateway.process.child.pid ?? -1,
        worker: worker.pid,
      };
      if (plane.registryPid !== undefined) parties.registry = plane.registryPid;
      return parties;
    },
    async stop(signal) {
      await stack.gateway.stop(signal);
      await worker.stop(signal);
    },
  };
  return stack;
}

/**
 * modelgate co-located: one gateway process with the worker inside it (GATEWAY_LOCAL_WORKER), the
 * gateway calling it in-process; `deployment` must be one of its own (model, endpoint and worker
 * group), or the distributed stack's gateway would discover this worker too.
 */
export async function startColocated(
  plane: ControlPlane,
  deployment: Deployment,
  options: Pick<StackOptions, 'warmUpBody'> = {},
): Promise<ServingStack> {
  const endpoint = deployment.endpoint;
  if (endpoint === undefined) throw new Error(`deployment ${deployment.model} has no endpoint to serve`);
  const [grpcPort, httpPort] = [await freePort(), await freePort()];
  const node = await plane.publish(deployment, `127.0.0.1:${grpcPort}`);
  const cacheDir = await mkdtemp(join(tmpdir(), 'bench-colocated-'));
  const gateway = await startGateway(node.snapshotPath, {
    GATEWAY_LOCAL_WORKER: 'true',
    GATEWAY_LOG_LEVEL: QUIET_LOGS.GATEWAY_LOG_LEVEL,
    GATEWAY_DOCS: 'false',
    WORKER_HOST: '127.0.0.1',
    WORKER_GRPC_PORT: String(grpcPort),
    WORKER_HTTP_PORT: String(httpPort),
    WORKER_CACHE_DIR: join(cacheDir, 'worker-cache'),
    WORKER_ARTIFACT_ROOTS: join(findRepoRoot(), '.cache'),
    WORKER_LOG_LEVEL: QUIET_LOGS.WORKER_LOG_LEVEL,
    // A node following a registry reads no snapshot file (startGateway passes it to the gateway only).
    ...(node.gatewayEnv.REGISTRY_URL === undefined ? { WORKER_CONFIG_FILE: node.snapshotPath } : {}),
    ...node.workerEnv,
    ...node.gatewayEnv,
  });
  try {
    await waitFor(
      async () =>
        (await gateway.post(`/serve/${endpoint}`, options.warmUpBody ?? { text: 'warm up' })).status === 200,
      { timeoutMs: 120_000, intervalMs: 200, describe: () => gateway.process.output().slice(-2000) },
    );
  } catch (error) {
    await gateway.stop();
    throw error;
  }
  const metricsUrl = `http://127.0.0.1:${httpPort}/metrics`;
  return {
    deployment,
    gateway,
    worker: { counters: async () => workerCounters(await (await fetch(metricsUrl)).text(), deployment) },
    parties() {
      const parties: Record<string, number> = { 'gateway + worker': gateway.process.child.pid ?? -1 };
      if (plane.registryPid !== undefined) parties.registry = plane.registryPid;
      return parties;
    },
    async stop(signal) {
      await gateway.stop(signal);
    },
  };
}
