/**
 * The registry as the bench's control plane, as in production: one registry process on its own
 * Postgres schema and Redis key prefix for the whole run, a viewer token for the nodes, and each
 * deployment registered through the admin API (POST /v1/models → READY, POST /v1/endpoints).
 * Everything it created (schema, Redis keys) is removed again on stop.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type ServiceProcess,
  ensureFixture,
  freePort,
  sha256Of,
  startServiceProcess,
  waitFor,
  writeTokenizerBundle,
} from '@modelgate/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { REPO_ROOT } from './child-process.js';
import { type Deployment } from './control-plane.js';

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
  /** An admin API call; rejects on a non-2xx answer. */
  call(method: string, path: string, body?: unknown): Promise<unknown>;
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
  const registry = startServiceProcess(REGISTRY_MAIN, {
    DATABASE_URL,
    DATABASE_SCHEMA: schema,
    REDIS_URL,
    REDIS_KEY_PREFIX: keyPrefix,
    REGISTRY_HOST: '127.0.0.1',
    REGISTRY_PORT: String(port),
    REGISTRY_PUBLIC_URL: url,
    REGISTRY_BOOTSTRAP_TOKEN: adminToken,
    REGISTRY_MIGRATE_ON_START: 'true',
    REGISTRY_ARTIFACT_DIR: join(dir, 'registry-artifacts'),
    REGISTRY_CACHE_DIR: join(dir, 'registry-cache'),
    REGISTRY_ARTIFACT_ROOTS: [join(REPO_ROOT, '.cache'), dir].join(','),
    REGISTRY_LOG_LEVEL: 'warn',
  });
  const stop = async () => {
    await registry.stop();
    await dropSchema(schema).catch(() => undefined);
    await deleteKeys(keyPrefix).catch(() => undefined);
  };
  const call = adminCall(url, adminToken);
  try {
    await waitUntilReady(url, registry);
    const { token } = (await call('POST', '/v1/tokens', { name: 'bench-nodes', role: 'viewer' })) as {
      token: string;
    };
    return {
      ok: true,
      registry: {
        url,
        pid: registry.child.pid ?? -1,
        nodeEnv: { REGISTRY_URL: url, REGISTRY_TOKEN: token, REDIS_URL, REDIS_KEY_PREFIX: keyPrefix },
        artifactRoots: [join(REPO_ROOT, '.cache'), dir].join(','),
        call,
        stop,
      },
    };
  } catch (error) {
    await stop().catch(() => undefined);
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { ok: false, reason: `registry attempt failed: ${message}` };
  }
}

function adminCall(url: string, token: string): RegistryProcess['call'] {
  return async (method, path, body) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
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

/** Registers `deployment`'s model (waiting for READY) and, when it has one, its endpoint. */
export async function registerDeployment(
  registry: RegistryProcess,
  deployment: Deployment,
  dir: string,
): Promise<void> {
  const fixtureDir = await ensureFixture(deployment.fixture);
  const onnx = join(fixtureDir, 'onnx', 'model.onnx');
  await mkdir(dir, { recursive: true });
  const bundle = await writeTokenizerBundle(fixtureDir, dir);
  const call = (method: string, path: string, body?: unknown) => registry.call(method, path, body);
  await call('POST', '/v1/models', {
    name: deployment.model,
    version: 1,
    task: 'text-classification',
    workerGroup: deployment.workerGroup,
    artifact: { uri: pathToFileURL(onnx).href, sha256: await sha256Of(onnx) },
    tokenizer: { uri: pathToFileURL(bundle.path).href, sha256: bundle.sha256 },
    batching: deployment.batching,
    runtime: {
      executionProviders: ['cpu'],
      instances: deployment.instances,
      intraOpThreads: deployment.intraOpThreads,
    },
  });
  let status = '';
  await waitFor(
    async () => {
      const model = (await call('GET', `/v1/models/${deployment.model}/1`)) as {
        status: string;
        statusReason?: string | null;
      };
      status = `${model.status}${model.statusReason ? ` (${model.statusReason})` : ''}`;
      return model.status === 'READY' || model.status === 'FAILED';
    },
    { timeoutMs: 120_000, intervalMs: 200, describe: () => `model status ${status}` },
  );
  if (!status.startsWith('READY'))
    throw new Error(`model preparation of ${deployment.model} ended ${status}`);
  if (deployment.endpoint) {
    await call('POST', '/v1/endpoints', {
      name: deployment.endpoint,
      task: 'text-classification',
      model: `${deployment.model}:1`,
    });
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
