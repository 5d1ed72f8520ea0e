/**
 * How the bench's modelgate nodes get their config. As deployed (`live-sync`): one registry on
 * Postgres and Redis for the whole run; each deployment is registered through its admin API and
 * the workers and gateways follow the registry (Redis announcements, reconcile, heartbeats and
 * worker discovery) — see registry-control-plane.ts. Without Postgres, Redis or a built registry
 * (`snapshot-file`), the bench writes each deployment's ConfigSnapshot itself, with the worker's
 * address added statically, and the report says why.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ModelTask } from '@modelgate/contracts';
import { writeSnapshot } from '@modelgate/testing';
import { registerDeployment } from './register-deployment.js';
import { type RegistryProcess, tryStartRegistry } from './registry-control-plane.js';

/** One model behind (optionally) one endpoint, served by the workers of one worker group. */
export interface Deployment {
  /** Fixture the model is generated from. */
  fixture: string;
  /** Model name (unique per run); its version is 1. */
  model: string;
  /** Worker group that loads the model: each deployment gets its own workers. */
  workerGroup: string;
  /** Endpoint routed 100% to the model; none for a deployment measured over gRPC only. */
  endpoint?: string;
  /** The model's and endpoint's task. @defaultValue 'text-classification' */
  task?: ModelTask;
  /** ModelSpec.batching (unset fields take the schema's defaults). */
  batching: Record<string, number | number[]>;
  /** ModelSpec.runtime.intraOpThreads (0 = the worker's default: cores ÷ instances). */
  intraOpThreads: number;
  /** ModelSpec.runtime.instances. */
  instances: number;
}

/** What one deployment's worker and gateway processes are started with. */
export interface NodeConfig {
  /**
   * The snapshot file the test harness hands the node. Under live sync it is an empty snapshot the
   * harness does not pass on (a node refuses a file beside REGISTRY_URL), as in test/e2e/live-sync.
   */
  snapshotPath: string;
  workerEnv: Record<string, string>;
  gatewayEnv: Record<string, string>;
}

/** The run's control plane. */
export interface ControlPlane {
  via: 'live-sync' | 'snapshot-file';
  /** One line for the report: how config reaches the nodes, or why the registry is not in the path. */
  note: string;
  /** The registry process, when one runs (a measured party: it serves heartbeats and reconciles). */
  registryPid?: number;
  /** Makes `deployment` known to its nodes; `workerAddress` is host:port of its worker's gRPC server. */
  publish(deployment: Deployment, workerAddress: string): Promise<NodeConfig>;
  stop(): Promise<void>;
}

/**
 * `auto`: live sync when the registry starts, else snapshot files; `live`: live sync or stop with
 * the reason; `off`: snapshot files.
 */
export const REGISTRY_MODES = ['auto', 'live', 'off'] as const;

/** One of REGISTRY_MODES. */
export type RegistryMode = (typeof REGISTRY_MODES)[number];

/** Starts the control plane for `mode` in `dir` (the run's scratch directory). */
export async function startControlPlane(dir: string, mode: RegistryMode): Promise<ControlPlane> {
  let reason = 'registry disabled (--registry off)';
  if (mode !== 'off') {
    const attempt = await tryStartRegistry(dir);
    if (attempt.ok) return liveSync(dir, attempt.registry);
    if (mode === 'live') throw new Error(`--registry live: ${attempt.reason}`);
    reason = attempt.reason;
  }
  return {
    via: 'snapshot-file',
    note: `snapshot files written by the bench, worker addresses static; no registry, Redis or live sync in the path (${reason})`,
    publish: (deployment, workerAddress) => snapshotFileConfig(dir, deployment, workerAddress),
    stop: () => Promise.resolve(),
  };
}

function liveSync(dir: string, registry: RegistryProcess): ControlPlane {
  const registered = new Set<string>();
  return {
    via: 'live-sync',
    note:
      'live sync as deployed: a registry on Postgres + Redis; each model registered through its admin API ' +
      '(POST /v1/models → READY, POST /v1/endpoints); workers and gateways follow it (REGISTRY_URL, Redis ' +
      'announcements and heartbeats) and gateways find workers by discovery, with default intervals',
    registryPid: registry.pid,
    async publish(deployment) {
      if (!registered.has(deployment.model)) {
        await registerDeployment(registry, deployment, dir);
        registered.add(deployment.model);
      }
      return liveSyncNodeConfig(registry, deployment, dir);
    },
    stop: () => registry.stop(),
  };
}

/** How a worker or gateway of `deployment` follows `registry` (live sync), with its files in `dir`. */
export async function liveSyncNodeConfig(
  registry: Pick<RegistryProcess, 'nodeEnv' | 'artifactRoots'>,
  deployment: Deployment,
  dir: string,
): Promise<NodeConfig> {
  const snapshotPath = join(dir, 'unused-snapshot.json');
  await writeFile(snapshotPath, JSON.stringify({ revision: 0, models: [], endpoints: [] }));
  const node = registry.nodeEnv;
  return {
    snapshotPath,
    workerEnv: {
      ...node,
      WORKER_GROUP: deployment.workerGroup,
      WORKER_ARTIFACT_ROOTS: registry.artifactRoots,
    },
    gatewayEnv: { ...node, GATEWAY_ARTIFACT_ROOTS: registry.artifactRoots },
  };
}

/** The ConfigSnapshot the registry would publish for `deployment`, written by the test harness. */
async function snapshotFileConfig(
  dir: string,
  deployment: Deployment,
  workerAddress: string,
): Promise<NodeConfig> {
  const own = join(dir, `snapshot-${deployment.model}`);
  await mkdir(own, { recursive: true });
  const path = await writeSnapshot(
    own,
    [
      {
        name: deployment.model,
        fixture: deployment.fixture,
        task: deployment.task ?? 'text-classification',
        workerGroup: deployment.workerGroup,
        batching: deployment.batching,
        instances: deployment.instances,
      },
    ],
    {
      endpoints: deployment.endpoint
        ? [
            {
              name: deployment.endpoint,
              task: deployment.task ?? 'text-classification',
              routes: [{ model: `${deployment.model}:1`, weight: 100, role: 'primary' }],
            },
          ]
        : [],
      workerGroups: [{ name: deployment.workerGroup, addresses: [workerAddress] }],
    },
  );
  // writeSnapshot pins intraOpThreads to 1 for tests; the bench sets the deployment's own value.
  const snapshot = JSON.parse(await readFile(path, 'utf8')) as {
    models: { runtime: Record<string, unknown> }[];
  };
  for (const model of snapshot.models) model.runtime.intraOpThreads = deployment.intraOpThreads;
  await writeFile(path, JSON.stringify(snapshot, null, 2));
  return { snapshotPath: path, workerEnv: { WORKER_GROUP: deployment.workerGroup }, gatewayEnv: {} };
}
