/**
 * The fleet the drills run against, every part its own process as deployed: the run's own
 * Postgres and Redis, a registry on them, two workers and two gateways following it (live sync,
 * Redis announcements, heartbeats and worker discovery, default intervals). The deployment is two
 * versions of one model behind one endpoint (a canary route), so a config change is a canary
 * weight change, as `modelgate route set` makes it. Every part can be faulted and brought back; a
 * gateway comes back on its own port (the load's "Service" keeps its address list), a worker on
 * new ports (gateways find it by its heartbeat).
 */
import { type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type AdminAnswer } from '@modelgate/admin-client';
import { type OwnRedis, type RunningGateway, startGateway, startOwnRedis, waitFor } from '@modelgate/testing';
import { type ControlPlane, type Deployment, liveSyncNodeConfig } from '../control-plane.js';
import { type WorkerNode, startWorkerNode } from '../modelgate-stack.js';
import { registerDeployment, registerModelVersion } from '../register-deployment.js';
import { artifactRootsOf } from '../registry-control-plane.js';
import { type ChaosRegistry, startChaosRegistry } from './chaos-registry.js';
import { type OwnPostgres, startOwnPostgres } from './own-postgres.js';
import { settleFleet } from './fleet-settle.js';

/** Workers and gateways of a full fleet. */
export const FLEET_SIZE = 2;

/** The model, its two versions and the endpoint routing between them. */
export const DEPLOYMENT: Deployment & { endpoint: string } = {
  fixture: 'minilm-sst2',
  model: 'minilm',
  workerGroup: 'default',
  endpoint: 'sentiment',
  batching: {},
  // Two workers share the machine's cores: one intra-op thread each.
  intraOpThreads: 1,
  instances: 1,
};

/** One node's applied config revision (null before its first, or when it did not answer). */
export interface NodeRevision {
  node: string;
  revision: number | null;
}

/** `stopping`: signalled by a drill, no longer counted as a node. */
type SlotState = 'up' | 'stopping' | 'down';

interface Slot<T> {
  node?: T;
  state: SlotState;
  /** Resolves once the process of `node` has exited. */
  exited?: Promise<unknown>;
}

/** Whether a slot's process was started and has not exited (it may have crashed on its own). */
function alive<T>(slot: Slot<T>, child: (node: T) => ChildProcess): boolean {
  if (slot.state !== 'up' || slot.node === undefined) return false;
  const process = child(slot.node);
  return process.exitCode === null && process.signalCode === null;
}

const workerChild = (node: WorkerNode) => node.running.process.child;
const gatewayChild = (node: RunningGateway) => node.process.child;

/** A running process of the fleet, for sampling its memory and file descriptors. */
export interface FleetProcess {
  /** `registry`, `gateway 0`, `worker 1`, … */
  name: string;
  pid: number;
  /** Base URL of its HTTP server (its Prometheus text is at /metrics). */
  url: string;
}

/** The running fleet and its faults. */
export interface ChaosStack {
  readonly postgres: OwnPostgres;
  readonly redis: OwnRedis;
  readonly registry: ChaosRegistry;
  /** Gateway base URLs by index; a restarted gateway keeps its URL. */
  readonly gatewayUrls: string[];
  /** Sends `signal` to worker `index`; it no longer counts as a node from now on. */
  signalWorker(index: number, signal: NodeJS.Signals): void;
  /** Stops worker `index` where it stands (SIGSTOP): it keeps its connections and answers nothing. */
  pauseWorker(index: number): void;
  /** Lets paused worker `index` go on (SIGCONT); resolves once its /health/ready answers 200 again. */
  resumeWorker(index: number): Promise<void>;
  /** Starts worker `index` again (after its previous process has exited) and waits until it serves. */
  startWorker(index: number): Promise<void>;
  /** Sends `signal` to gateway `index`; it no longer counts as a node from now on. */
  signalGateway(index: number, signal: NodeJS.Signals): void;
  /** Starts gateway `index` again on its port (after its previous process has exited). */
  startGateway(index: number): Promise<void>;
  /** Sets the canary route's weight (0–100); the registry's answer, or a rejection when none came. */
  setCanaryWeight(weight: number): Promise<AdminAnswer>;
  /** The registry's latest config revision. */
  latestRevision(): Promise<number>;
  /** Applied revision of every running gateway and worker, from its /health/ready. */
  nodeRevisions(): Promise<NodeRevision[]>;
  /** Brings back whatever is down, then waits until the whole fleet is ready at the latest revision. */
  restore(): Promise<void>;
  /** The registry, gateways and workers running now. */
  processes(): FleetProcess[];
  /** Writes every process's output (every run of it) under `dir`. */
  saveLogs(dir: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * One event loop each. After SIGTERM a gateway keeps serving for GATEWAY_SHUTDOWN_DELAY_MS with
 * /health/ready already 503 (5000: what its config doc gives for a gateway behind a Kubernetes
 * Service), so the load's readiness poll takes it out of rotation before it stops accepting.
 */
const GATEWAY_ENV = {
  GATEWAY_WORKERS: '1',
  GATEWAY_LOG_LEVEL: 'warn',
  GATEWAY_DOCS: 'false',
  GATEWAY_SHUTDOWN_DELAY_MS: '5000',
};

async function revisionAt(url: string): Promise<number | null> {
  try {
    const response = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(1000) });
    return ((await response.json()) as { revision?: number | null }).revision ?? null;
  } catch {
    return null;
  }
}

/** Registers both versions (READY), the endpoint and a 90/10 canary route, then `extra`'s models and endpoints. */
async function deploy(registry: ChaosRegistry, dir: string, extra: readonly Deployment[]): Promise<void> {
  await registerModelVersion(registry.admin, DEPLOYMENT, dir, 1);
  await registerModelVersion(registry.admin, DEPLOYMENT, dir, 2);
  await registry.admin.createEndpoint({
    name: DEPLOYMENT.endpoint,
    task: 'text-classification',
    model: `${DEPLOYMENT.model}:1`,
  });
  const answer = await setCanary(registry, 10);
  if (answer.status !== 200) throw new Error(`setting the canary route answered ${answer.status}`);
  for (const deployment of extra) await registerDeployment(registry, deployment, dir);
}

function setCanary(registry: ChaosRegistry, weight: number): Promise<AdminAnswer> {
  return registry.admin.request('PUT', `/v1/endpoints/${DEPLOYMENT.endpoint}/routes`, {
    routes: [
      { model: `${DEPLOYMENT.model}:1`, weight: 100 - weight, role: 'primary' },
      { model: `${DEPLOYMENT.model}:2`, weight, role: 'canary' },
    ],
  });
}

/**
 * Starts the fleet in `dir` (the run's scratch directory). `extra`: more models (version 1) and
 * their endpoints, in DEPLOYMENT's worker group, so every worker serves them too (the soak's mix).
 */
export async function startChaosStack(dir: string, extra: readonly Deployment[] = []): Promise<ChaosStack> {
  const postgres = await startOwnPostgres();
  const redis = await startOwnRedis().catch(async (error: unknown) => {
    await postgres.destroy();
    throw error;
  });
  const cleanups: (() => Promise<void>)[] = [() => redis.kill(), () => postgres.destroy()];
  const logs: { name: string; output: () => string }[] = [
    { name: 'postgres', output: () => postgres.output() },
    { name: 'redis', output: () => redis.output() },
  ];
  const workers: Slot<WorkerNode>[] = Array.from({ length: FLEET_SIZE }, () => ({ state: 'down' }));
  const gateways: Slot<RunningGateway>[] = Array.from({ length: FLEET_SIZE }, () => ({ state: 'down' }));
  const stopAll = async () => {
    const exits: Promise<unknown>[] = [];
    for (const slot of [...gateways, ...workers]) {
      if (slot.state === 'up' && slot.node) exits.push(slot.node.stop('SIGTERM'));
      if (slot.exited) exits.push(slot.exited);
    }
    // Every part is stopped even when one of them fails to.
    await Promise.allSettled(exits);
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  };
  try {
    const registry = await startChaosRegistry(postgres.url, redis.url, dir);
    cleanups.unshift(() => registry.kill());
    logs.push({ name: 'registry', output: () => registry.output() });
    await deploy(registry, dir, extra);
    const { token } = await registry.admin.createToken({ name: 'chaos-nodes', role: 'viewer' });
    const nodeConfig = await liveSyncNodeConfig(
      {
        nodeEnv: {
          REGISTRY_URL: registry.url,
          REGISTRY_TOKEN: token,
          REDIS_URL: redis.url,
          REDIS_KEY_PREFIX: registry.keyPrefix,
        },
        artifactRoots: artifactRootsOf(dir),
      },
      DEPLOYMENT,
      dir,
    );
    const plane: ControlPlane = {
      via: 'live-sync',
      note: 'the chaos run registry',
      publish: () => Promise.resolve(nodeConfig),
      stop: () => Promise.resolve(),
    };
    const gatewayPorts: string[] = [];
    const gatewayUrls: string[] = [];

    const stack: ChaosStack = {
      postgres,
      redis,
      registry,
      gatewayUrls,
      signalWorker(index, signal) {
        const slot = workers[index]!;
        if (!alive(slot, workerChild)) return;
        slot.state = 'stopping';
        slot.node?.running.process.child.kill(signal);
      },
      pauseWorker(index) {
        const slot = workers[index]!;
        if (alive(slot, workerChild)) slot.node?.running.process.child.kill('SIGSTOP');
      },
      async resumeWorker(index) {
        const node = workers[index]?.node;
        if (node === undefined) return;
        node.running.process.child.kill('SIGCONT');
        await waitFor(async () => (await fetch(`${node.running.httpUrl}/health/ready`)).status === 200, {
          timeoutMs: 60_000,
          describe: () => `worker ${index} ready again after SIGCONT`,
        });
      },
      async startWorker(index) {
        const slot = workers[index]!;
        await slot.exited;
        const node = await startWorkerNode(plane, DEPLOYMENT);
        const runs = logs.filter((log) => log.name.startsWith(`worker-${index}`)).length;
        logs.push({ name: `worker-${index}.run-${runs + 1}`, output: () => node.running.process.output() });
        workers[index] = { node, state: 'up', exited: node.running.process.exited };
      },
      signalGateway(index, signal) {
        const slot = gateways[index]!;
        if (!alive(slot, gatewayChild)) return;
        slot.state = 'stopping';
        slot.node?.process.child.kill(signal);
      },
      async startGateway(index) {
        const slot = gateways[index]!;
        await slot.exited;
        const node = await startGateway(nodeConfig.snapshotPath, {
          ...GATEWAY_ENV,
          ...nodeConfig.gatewayEnv,
          ...(gatewayPorts[index] ? { GATEWAY_PORT: gatewayPorts[index] } : {}),
        });
        gatewayPorts[index] = new URL(node.url).port;
        gatewayUrls[index] = node.url;
        const runs = logs.filter((log) => log.name.startsWith(`gateway-${index}`)).length;
        logs.push({ name: `gateway-${index}.run-${runs + 1}`, output: () => node.process.output() });
        gateways[index] = { node, state: 'up', exited: node.process.exited };
      },
      setCanaryWeight: (weight) => setCanary(registry, weight),
      async latestRevision() {
        return (await registry.admin.configSnapshot()).revision;
      },
      async nodeRevisions() {
        const probes = [
          ...gateways.map((slot, i) => ({
            node: `gateway ${i}`,
            url: alive(slot, gatewayChild) ? slot.node?.url : undefined,
          })),
          ...workers.map((slot, i) => ({
            node: `worker ${i}`,
            url: alive(slot, workerChild) ? slot.node?.running.httpUrl : undefined,
          })),
        ].filter((probe) => probe.url !== undefined);
        return Promise.all(
          probes.map(async (probe) => ({ node: probe.node, revision: await revisionAt(probe.url!) })),
        );
      },
      async restore() {
        if (!postgres.running()) await postgres.start();
        if (!redis.running()) await redis.start();
        if (!registry.running()) await registry.start();
        for (let i = 0; i < FLEET_SIZE; i++) {
          if (!alive(workers[i]!, workerChild)) await stack.startWorker(i);
          if (!alive(gateways[i]!, gatewayChild)) await stack.startGateway(i);
        }
        await settleFleet(stack, FLEET_SIZE);
      },
      processes() {
        const running: FleetProcess[] = [];
        const pid = registry.pid();
        if (pid !== undefined) running.push({ name: 'registry', pid, url: registry.url });
        gateways.forEach((slot, i) => {
          if (alive(slot, gatewayChild) && slot.node?.process.child.pid !== undefined)
            running.push({ name: `gateway ${i}`, pid: slot.node.process.child.pid, url: slot.node.url });
        });
        workers.forEach((slot, i) => {
          if (alive(slot, workerChild) && slot.node !== undefined)
            running.push({ name: `worker ${i}`, pid: slot.node.pid, url: slot.node.running.httpUrl });
        });
        return running;
      },
      async saveLogs(logDir) {
        await Promise.all(logs.map((log) => writeFile(join(logDir, `${log.name}.log`), log.output())));
      },
      stop: stopAll,
    };
    await stack.restore();
    return stack;
  } catch (error) {
    await stopAll();
    throw error;
  }
}
