// A worker and a gateway following a test registry live (REGISTRY_URL and Redis), as the e2e
// suites that bring up the whole stack as processes start them.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRepoRoot } from '@modelgate/fixtures';
import {
  type RunningGateway,
  type RunningWorker,
  startGateway,
  startWorkerWithSnapshot,
  ADMIN_TOKEN,
  type RunningRegistry,
} from '@modelgate/testing';
import { type Isolation } from '../../../apps/registry/test/support/registry-harness.js';

/** What a node needs to follow `registry`: a snapshot file it never reads, its env and artifact roots. */
export interface LiveNodeSettings {
  /** An empty snapshot file, for the harness signature: beside REGISTRY_URL it is not passed on. */
  unusedSnapshot: string;
  /** REGISTRY_URL, REGISTRY_TOKEN, REDIS_URL and REDIS_KEY_PREFIX of the isolation. */
  env: Record<string, string>;
  /** The fixture cache and the isolation's uploaded files, as WORKER_/GATEWAY_ARTIFACT_ROOTS. */
  roots: string;
}

/** The settings of nodes following `registry` through `redisUrl` (the isolation's Redis unless given). */
export async function liveNodeSettings(
  registry: RunningRegistry,
  iso: Isolation,
  redisUrl: string = iso.env.REDIS_URL!,
): Promise<LiveNodeSettings> {
  const dir = await mkdtemp(join(tmpdir(), 'live-nodes-'));
  const unusedSnapshot = join(dir, 'unused-snapshot.json');
  await writeFile(unusedSnapshot, JSON.stringify({ revision: 0, models: [], endpoints: [] }));
  return {
    unusedSnapshot,
    env: {
      REGISTRY_URL: registry.url,
      REGISTRY_TOKEN: ADMIN_TOKEN,
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: iso.keyPrefix,
    },
    roots: `${join(findRepoRoot(), '.cache')},${join(iso.dir, 'files')}`,
  };
}

/** A worker and a gateway following a registry; stop the gateway first. */
export interface LiveWorkerAndGateway {
  worker: RunningWorker;
  gateway: RunningGateway;
}

/**
 * Starts a worker, then a gateway, following `registry` through the isolation's Redis, each with
 * its extra env on top of the live settings and artifact roots. Stops the worker if the gateway
 * fails to start.
 */
export async function startLiveWorkerAndGateway(
  registry: RunningRegistry,
  iso: Isolation,
  extra: { worker?: Record<string, string>; gateway?: Record<string, string> } = {},
): Promise<LiveWorkerAndGateway> {
  const { unusedSnapshot, env, roots } = await liveNodeSettings(registry, iso);
  const worker = await startWorkerWithSnapshot(unusedSnapshot, {
    ...env,
    WORKER_ARTIFACT_ROOTS: roots,
    ...extra.worker,
  });
  try {
    const gateway = await startGateway(unusedSnapshot, {
      ...env,
      GATEWAY_ARTIFACT_ROOTS: roots,
      ...extra.gateway,
    });
    return { worker, gateway };
  } catch (error) {
    await worker.stop();
    throw error;
  }
}
