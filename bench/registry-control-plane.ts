/**
 * The registry as the bench's control plane, as in production: one registry process on its own
 * Postgres schema and Redis key prefix for the whole run, a viewer token for the nodes, and each
 * deployment registered through the admin API (POST /v1/models → READY, POST /v1/endpoints).
 * Everything it created (schema, Redis keys) is removed again on stop.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AdminClient } from '@modelgate/admin-client';
import { type ServiceProcess, freePort, startServiceProcess, waitFor } from '@modelgate/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { REPO_ROOT } from './child-process.js';

/** The built registry entry point. */
export const REGISTRY_MAIN = join(REPO_ROOT, 'apps', 'registry', 'dist', 'main.js');

/** Postgres and Redis the registry uses (DESIGN §6: the test services on localhost). */
const DATABASE_URL = process.env.MODELGATE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.MODELGATE_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** How long a missing Postgres or Redis may take to say so. */
const PROBE_TIMEOUT_MS = 3000;

/** A running registry that nodes can follow. */
export interface RegistryProcess {
  url: string;
  pid: number;
  /** REGISTRY_URL, REGISTRY_TOKEN (a viewer token), REDIS_URL and REDIS_KEY_PREFIX for workers and gateways. */
  nodeEnv: Record<string, string>;
  /** Directories `file://` artifact URIs of the run point into (fixtures cache, the run's scratch dir). */
  artifactRoots: string;
  /** Its admin API, with the admin token. */
  admin: AdminClient;
  stop(): Promise<void>;
}

type Attempt = { ok: true; registry: RegistryProcess } | { ok: false; reason: string };

/** host:port of a service URL, without credentials, for messages. */
const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return 'the configured address';
  }
};

/** Why Postgres or Redis cannot serve the registry, or undefined when both answer. */
async function missingServices(): Promise<string | undefined> {
  const problems: string[] = [];
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    problems.push(`Postgres at ${hostOf(DATABASE_URL)} did not answer (${(error as Error).message})`);
  } finally {
    await client.end().catch(() => undefined);
  }
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: PROBE_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    problems.push(`Redis at ${hostOf(REDIS_URL)} did not answer (${(error as Error).message})`);
  } finally {
    redis.disconnect();
  }
  return problems.length > 0 ? problems.join('; ') : undefined;
}

/** Where and how one registry process runs (the bench's, or the chaos run's on its own Postgres and Redis). */
export interface RegistryServiceSettings {
  databaseUrl: string;
  redisUrl: string;
  /** DATABASE_SCHEMA: the run's own schema. */
  schema: string;
  /** REDIS_KEY_PREFIX shared with the run's nodes. */
  keyPrefix: string;
  /** REGISTRY_BOOTSTRAP_TOKEN: the admin token of the run. */
  adminToken: string;
  /** REGISTRY_PORT on 127.0.0.1; a restarted registry keeps its address. */
  port: number;
  /** Scratch directory: artifacts and cache below it, and a `file://` artifact root. */
  dir: string;
}

/** `file://` artifact roots of a run in `dir`: the fixtures cache and the run's scratch directory. */
export function artifactRootsOf(dir: string): string {
  return [join(REPO_ROOT, '.cache'), dir].join(',');
}

/** REGISTRY_CACHE_DIR of a registry whose files are under `dir`. */
export function registryCacheDirOf(dir: string): string {
  return join(dir, 'registry-cache');
}

/**
 * Starts a registry process with `settings` (migrations on start) and waits until it is ready;
 * rejects with the reason when it exits first (e.g. Postgres or Redis cannot be reached).
 */
export async function launchRegistry(settings: RegistryServiceSettings): Promise<ServiceProcess> {
  const url = `http://127.0.0.1:${settings.port}`;
  const registry = startServiceProcess(REGISTRY_MAIN, {
    DATABASE_URL: settings.databaseUrl,
    DATABASE_SCHEMA: settings.schema,
    REDIS_URL: settings.redisUrl,
    REDIS_KEY_PREFIX: settings.keyPrefix,
    REGISTRY_HOST: '127.0.0.1',
    REGISTRY_PORT: String(settings.port),
    REGISTRY_PUBLIC_URL: url,
    REGISTRY_BOOTSTRAP_TOKEN: settings.adminToken,
    REGISTRY_MIGRATE_ON_START: 'true',
    REGISTRY_ARTIFACT_DIR: join(settings.dir, 'registry-artifacts'),
    REGISTRY_CACHE_DIR: registryCacheDirOf(settings.dir),
    REGISTRY_ARTIFACT_ROOTS: artifactRootsOf(settings.dir),
    REGISTRY_LOG_LEVEL: 'warn',
  });
  try {
    await waitUntilReady(url, registry);
  } catch (error) {
    await registry.stop('SIGKILL');
    throw error;
  }
  return registry;
}

/** Starts the registry and a viewer token for the nodes, or says why not (and leaves nothing behind). */
export async function tryStartRegistry(dir: string): Promise<Attempt> {
  if (!existsSync(REGISTRY_MAIN)) return { ok: false, reason: `${REGISTRY_MAIN} is not built` };
  const missing = await missingServices();
  if (missing) return { ok: false, reason: missing };
  const id = randomBytes(4).toString('hex');
  const schema = `bench_${id}`;
  const adminToken = `bench-admin-token-${id}-0123456789`;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const keyPrefix = `mgbench-${id}`;
  let registry: ServiceProcess | undefined;
  const stop = async () => {
    await registry?.stop();
    await dropSchema(schema).catch(() => undefined);
    await deleteKeys(keyPrefix).catch(() => undefined);
  };
  const admin = new AdminClient({ baseUrl: url, token: adminToken });
  try {
    registry = await launchRegistry({
      databaseUrl: DATABASE_URL,
      redisUrl: REDIS_URL,
      schema,
      keyPrefix,
      adminToken,
      port,
      dir,
    });
    const { token } = await admin.createToken({ name: 'bench-nodes', role: 'viewer' });
    return {
      ok: true,
      registry: {
        url,
        pid: registry.child.pid ?? -1,
        nodeEnv: { REGISTRY_URL: url, REGISTRY_TOKEN: token, REDIS_URL, REDIS_KEY_PREFIX: keyPrefix },
        artifactRoots: artifactRootsOf(dir),
        admin,
        stop,
      },
    };
  } catch (error) {
    await stop().catch(() => undefined);
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { ok: false, reason: `registry attempt failed: ${message}` };
  }
}

async function waitUntilReady(url: string, registry: ServiceProcess): Promise<void> {
  const exited = () => registry.child.exitCode !== null || registry.child.signalCode !== null;
  // A registry that cannot reach Postgres or Redis exits: stop waiting then, not after the timeout.
  await waitFor(async () => exited() || (await fetch(`${url}/health/ready`)).ok, {
    timeoutMs: 60_000,
    describe: () => registry.output().slice(-2000),
  });
  if (exited()) {
    const lines = registry.output().trim().split('\n');
    const reason = lines.filter((line) => /error/i.test(line)).at(-1) ?? lines.at(-1) ?? '';
    throw new Error(`the registry exited: ${reason.trim().slice(0, 200)}`);
  }
}

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
