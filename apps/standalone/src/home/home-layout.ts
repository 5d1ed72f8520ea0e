import { join } from 'node:path';

/** What lives under MODELGATE_HOME. */
export interface HomeLayout {
  root: string;
  /** The embedded PGlite database (when DATABASE_URL is unset). */
  pgdata: string;
  /** The admin token, mode 0600. */
  adminToken: string;
  /** The viewer token the gateway and worker read the registry with, mode 0600. */
  nodeToken: string;
  /** Pid of the launcher using this home; a second launcher refuses to start. */
  lock: string;
  /** The registry's content-addressed store of uploaded artifacts. */
  artifacts: string;
  registryCache: string;
  workerCache: string;
  gatewayCache: string;
}

/** The paths under `root` (absolute). */
export function homeLayout(root: string): HomeLayout {
  return {
    root,
    pgdata: join(root, 'pgdata'),
    adminToken: join(root, 'admin-token'),
    nodeToken: join(root, 'node-token'),
    lock: join(root, 'standalone.pid'),
    artifacts: join(root, 'artifacts'),
    registryCache: join(root, 'registry-cache'),
    workerCache: join(root, 'worker-cache'),
    gatewayCache: join(root, 'gateway-cache'),
  };
}
