/**
 * The control-plane step of the bench: turn "serve minilm-sst2 behind /serve/sentiment" into the
 * ConfigSnapshot that the worker and gateway processes apply. Today they read it from a file
 * (GATEWAY_CONFIG_FILE / WORKER_CONFIG_FILE); when the registry is built and reachable
 * (`--registry auto`), the model and endpoint are registered through its admin API and the file
 * is the registry's own /v1/config/snapshot (see registry-control-plane.ts).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { writeSnapshot } from '@modelgate/testing';
import { type RegistryControlPlane, tryRegistryControlPlane } from './registry-control-plane.js';

/** What the bench deploys: one text-classification model behind one endpoint. */
export interface Deployment {
  /** Fixture the model is generated from. */
  fixture: string;
  /** Model name; its version is 1. */
  model: string;
  endpoint: string;
  /** ModelSpec.batching (unset fields take the schema's defaults). */
  batching: Record<string, number | number[]>;
  /** ModelSpec.runtime.intraOpThreads (0 = onnxruntime's default: one thread per core). */
  intraOpThreads: number;
  /** ModelSpec.runtime.instances. */
  instances: number;
}

/** A published config: the snapshot file gateways and workers read, and where it came from. */
export interface PublishedConfig {
  snapshotPath: string;
  /** `snapshot-file`: written by the bench; `registry`: fetched from the registry after registering. */
  via: 'snapshot-file' | 'registry';
  /** One line for the report: why the registry is or is not in the path. */
  note: string;
  /** The registry process, when one runs. */
  registryPid?: number;
  stop(): Promise<void>;
}

/** How the bench chooses its control plane. */
export type RegistryMode = 'auto' | 'off';

/**
 * Publishes `deployment` for a worker at `workerAddress`: through the registry when `mode` is
 * auto and it works, else as a snapshot file written here.
 */
export async function publishConfig(
  dir: string,
  deployment: Deployment,
  workerAddress: string,
  mode: RegistryMode,
): Promise<PublishedConfig> {
  let reason = 'registry disabled (--registry off)';
  if (mode === 'auto') {
    const attempt = await tryRegistryControlPlane(dir, deployment, workerAddress);
    if (attempt.ok) return fromRegistry(attempt.plane);
    reason = attempt.reason;
  }
  return {
    snapshotPath: await writeSnapshotFile(dir, deployment, workerAddress),
    via: 'snapshot-file',
    note: `snapshot file written by the bench; the registry is not in the path (${reason})`,
    stop: () => Promise.resolve(),
  };
}

function fromRegistry(plane: RegistryControlPlane): PublishedConfig {
  return {
    snapshotPath: plane.snapshotPath,
    via: 'registry',
    note: plane.note,
    registryPid: plane.pid,
    stop: () => plane.stop(),
  };
}

/** The ConfigSnapshot the registry would publish, written by the test harness. */
async function writeSnapshotFile(
  dir: string,
  deployment: Deployment,
  workerAddress: string,
): Promise<string> {
  const path = await writeSnapshot(
    dir,
    [
      {
        name: deployment.model,
        fixture: deployment.fixture,
        batching: deployment.batching,
        instances: deployment.instances,
      },
    ],
    {
      endpoints: [
        {
          name: deployment.endpoint,
          task: 'text-classification',
          routes: [{ model: `${deployment.model}:1`, weight: 100, role: 'primary' }],
        },
      ],
      workerGroups: [{ name: 'default', addresses: [workerAddress] }],
    },
  );
  // writeSnapshot pins intraOpThreads to 1 for tests; the bench sets the deployment's own value.
  const snapshot = JSON.parse(await readFile(path, 'utf8')) as {
    models: { runtime: Record<string, unknown> }[];
  };
  for (const model of snapshot.models) model.runtime.intraOpThreads = deployment.intraOpThreads;
  await writeFile(path, JSON.stringify(snapshot, null, 2));
  return path;
}
