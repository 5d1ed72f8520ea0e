/**
 * The chaos run's registry: one process on the run's own Postgres and Redis, always at the same
 * address, so it can be killed and started again while workers and gateways keep its URL.
 */
import { randomBytes } from 'node:crypto';
import { type ServiceProcess, freePort } from '@modelgate/testing';
import { AdminClient } from '@modelgate/admin-client';
import { launchRegistry, registryCacheDirOf } from '../registry-control-plane.js';

/** A registry that can go down and come back at the same address. */
export interface ChaosRegistry {
  readonly url: string;
  /** The run's scratch directory the registry keeps its files under. */
  readonly dir: string;
  /** Its REGISTRY_CACHE_DIR, where model preparation writes the artifacts it fetches. */
  readonly cacheDir: string;
  readonly keyPrefix: string;
  running(): boolean;
  /** The running process's pid; undefined while it is down. */
  pid(): number | undefined;
  /** Starts it (migrations on start) and waits until /health/ready answers 200. */
  start(): Promise<void>;
  /** SIGKILL, as a crash or an evicted pod: resolves once it has exited. */
  kill(): Promise<void>;
  /** Its admin API, with the admin token. */
  admin: AdminClient;
  /** Output of every run of the process so far. */
  output(): string;
}

/** Starts the run's registry on `databaseUrl` and `redisUrl`, with its files under `dir`. */
export async function startChaosRegistry(
  databaseUrl: string,
  redisUrl: string,
  dir: string,
): Promise<ChaosRegistry> {
  const id = randomBytes(4).toString('hex');
  const adminToken = `chaos-admin-token-${id}-0123456789`;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const keyPrefix = `mgchaos-${id}`;
  const settings = { databaseUrl, redisUrl, schema: 'modelgate', keyPrefix, adminToken, port, dir };
  const runs: ServiceProcess[] = [];
  const current = () => runs.at(-1);
  const running = () => {
    const child = current()?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  };
  const registry: ChaosRegistry = {
    url,
    dir,
    cacheDir: registryCacheDirOf(dir),
    keyPrefix,
    running,
    pid: () => (running() ? current()?.child.pid : undefined),
    async start() {
      if (running()) return;
      runs.push(await launchRegistry(settings));
    },
    async kill() {
      if (running()) await current()?.stop('SIGKILL');
    },
    admin: new AdminClient({ baseUrl: url, token: adminToken }),
    output: () => runs.map((run, i) => `--- registry run ${i + 1}\n${run.output()}`).join('\n'),
  };
  await registry.start();
  return registry;
}
