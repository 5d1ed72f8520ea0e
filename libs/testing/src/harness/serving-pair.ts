// A worker process and a gateway process serving one snapshot file, as the gateway's integration
// tests start them: the snapshot's 'default' worker group is that worker, on a free port.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { type RunningGateway, startGateway } from './gateway-process.js';
import {
  type RunningWorker,
  type TestModel,
  startWorkerWithSnapshot,
  writeSnapshot,
} from './worker-process.js';

/** What a serving pair is started from, besides its models. */
export interface ServingPairOptions {
  /** The snapshot's endpoints. */
  endpoints: unknown[];
  /** Worker groups besides 'default' (which is the started worker). */
  otherWorkerGroups?: { name: string; addresses: string[] }[];
  /** Env of the worker process, on top of its gRPC port. */
  workerEnv?: Record<string, string>;
  /** Env of the gateway process. */
  gatewayEnv?: Record<string, string>;
}

/** A running worker and gateway, and the snapshot file they serve; stop the gateway first. */
export interface ServingPair {
  worker: RunningWorker;
  gateway: RunningGateway;
  snapshot: string;
}

/**
 * Writes a snapshot of `models` and `options.endpoints` in a new temp dir, its 'default' worker
 * group a worker on a free port; starts that worker, then a gateway on the snapshot. Stops the
 * worker if the gateway fails to start.
 */
export async function startServingPair(
  models: TestModel[],
  options: ServingPairOptions,
): Promise<ServingPair> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-serving-'));
  const port = await freePort();
  const snapshot = await writeSnapshot(dir, models, {
    workerGroups: [
      { name: 'default', addresses: [`127.0.0.1:${port}`] },
      ...(options.otherWorkerGroups ?? []),
    ],
    endpoints: options.endpoints,
  });
  const worker = await startWorkerWithSnapshot(snapshot, {
    WORKER_GRPC_PORT: String(port),
    ...options.workerEnv,
  });
  try {
    const gateway = await startGateway(snapshot, options.gatewayEnv);
    return { worker, gateway, snapshot };
  } catch (error) {
    await worker.stop();
    throw error;
  }
}
