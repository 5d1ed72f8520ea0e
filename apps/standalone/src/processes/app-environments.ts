import { type HomeLayout } from '../home/home-layout.js';
import { type StandaloneConfig } from '../standalone.config.js';

/** How often the gateway and worker ask the registry for a new revision without Redis, in ms. */
export const POLL_INTERVAL_MS = 500;

/** What the launcher has settled before starting the apps. */
export interface LaunchFacts {
  config: StandaloneConfig;
  layout: HomeLayout;
  /** The Postgres the registry uses: the embedded one or DATABASE_URL. */
  databaseUrl: string;
  /** True when databaseUrl is the embedded PGlite. */
  embeddedDatabase: boolean;
  adminToken: string;
}

/** The address to dial for a server bound to `host`: a bind-all address means this machine. */
export function dialHost(host: string): string {
  const local = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return local.includes(':') ? `[${local}]` : local;
}

/** The registry's base URL as the launcher and the other apps dial it. */
export function registryUrl(config: StandaloneConfig): string {
  return `http://${dialHost(config.REGISTRY_HOST)}:${config.REGISTRY_PORT}`;
}

/** The gateway's base URL. */
export function gatewayUrl(config: StandaloneConfig): string {
  return `http://${dialHost(config.GATEWAY_HOST)}:${config.GATEWAY_PORT}`;
}

/**
 * Environments are layered: the launcher's defaults, then the user's environment (which may
 * override them), then what the launcher must decide itself (ports it dials, tokens, database).
 */
function layered(
  env: NodeJS.ProcessEnv,
  defaults: Record<string, string>,
  forced: Record<string, string>,
  drop: readonly string[] = [],
): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...defaults, ...env, ...forced };
  for (const key of drop) delete merged[key];
  return merged;
}

/** The registry's environment. */
export function registryEnvironment(env: NodeJS.ProcessEnv, facts: LaunchFacts): NodeJS.ProcessEnv {
  const { config, layout } = facts;
  return layered(
    env,
    {
      REGISTRY_LOG_LEVEL: 'warn',
      REGISTRY_ARTIFACT_DIR: layout.artifacts,
      REGISTRY_CACHE_DIR: layout.registryCache,
      REGISTRY_PUBLIC_URL: registryUrl(config),
    },
    {
      REGISTRY_HOST: config.REGISTRY_HOST,
      REGISTRY_PORT: String(config.REGISTRY_PORT),
      DATABASE_URL: facts.databaseUrl,
      REGISTRY_MIGRATE_ON_START: 'true',
      REGISTRY_BOOTSTRAP_TOKEN: facts.adminToken,
      // PGlite is one shared session: it ignores the search_path startup option, and more
      // connections add no parallelism. Its socket server schedules protocol messages, not
      // connections, with known hazards across connections (electric-sql/pglite#1046, #985):
      // one connection keeps every statement and transaction whole. No registry code waits on
      // a second connection inside a transaction, so one connection cannot deadlock.
      ...(facts.embeddedDatabase ? { DATABASE_SCHEMA: 'public', DATABASE_POOL_SIZE: '1' } : {}),
    },
  );
}

/** Variables only the registry or the launcher may see. */
const NODE_HIDDEN = ['DATABASE_URL', 'REGISTRY_BOOTSTRAP_TOKEN'] as const;

/** The worker's environment; `nodeToken` is its viewer token for the registry. */
export function workerEnvironment(
  env: NodeJS.ProcessEnv,
  facts: LaunchFacts,
  nodeToken: string,
): NodeJS.ProcessEnv {
  const { config, layout } = facts;
  return layered(
    env,
    {
      WORKER_LOG_LEVEL: 'warn',
      WORKER_CACHE_DIR: layout.workerCache,
      WORKER_DRAIN_TIMEOUT_MS: '5000',
      ...(config.REDIS_URL === undefined ? { WORKER_RECONCILE_INTERVAL_MS: String(POLL_INTERVAL_MS) } : {}),
    },
    {
      WORKER_HOST: config.WORKER_HOST,
      WORKER_GRPC_PORT: String(config.WORKER_GRPC_PORT),
      WORKER_HTTP_PORT: String(config.WORKER_HTTP_PORT),
      WORKER_GROUP: config.WORKER_GROUP,
      REGISTRY_URL: registryUrl(config),
      REGISTRY_TOKEN: nodeToken,
    },
    NODE_HIDDEN,
  );
}

/**
 * The gateway's environment. Without Redis there are no heartbeats to discover the worker
 * from, so the gateway is told its address; a co-located worker needs no address.
 */
export function gatewayEnvironment(
  env: NodeJS.ProcessEnv,
  facts: LaunchFacts,
  nodeToken: string,
  colocated = false,
): NodeJS.ProcessEnv {
  const { config, layout } = facts;
  const worker = `${dialHost(config.WORKER_HOST)}:${config.WORKER_GRPC_PORT}`;
  return layered(
    env,
    {
      GATEWAY_LOG_LEVEL: 'warn',
      GATEWAY_CACHE_DIR: layout.gatewayCache,
      // One event loop: the worker and the registry share this machine's cores.
      GATEWAY_WORKERS: '1',
      // Nothing balances by readiness here: no shutdown delay (the default); drains end well within
      // the launcher's stop grace, like the worker's.
      GATEWAY_DRAIN_TIMEOUT_MS: '5000',
      ...(config.REDIS_URL === undefined
        ? {
            GATEWAY_RECONCILE_INTERVAL_MS: String(POLL_INTERVAL_MS),
            ...(colocated ? {} : { GATEWAY_WORKER_ADDRESSES: `${config.WORKER_GROUP}=${worker}` }),
          }
        : {}),
    },
    {
      GATEWAY_HOST: config.GATEWAY_HOST,
      GATEWAY_PORT: String(config.GATEWAY_PORT),
      GATEWAY_GRPC_PORT: String(config.GATEWAY_GRPC_PORT),
      REGISTRY_URL: registryUrl(config),
      REGISTRY_TOKEN: nodeToken,
    },
    NODE_HIDDEN,
  );
}

/**
 * The environment of a gateway with the worker inside its process (MODELGATE_COLOCATED): the
 * worker's variables and the gateway's side by side (each app reads its own), and
 * GATEWAY_LOCAL_WORKER.
 */
export function colocatedEnvironment(
  env: NodeJS.ProcessEnv,
  facts: LaunchFacts,
  nodeToken: string,
): NodeJS.ProcessEnv {
  return {
    ...workerEnvironment(env, facts, nodeToken),
    ...gatewayEnvironment(env, facts, nodeToken, true),
    GATEWAY_LOCAL_WORKER: 'true',
  };
}
