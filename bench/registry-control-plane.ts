/**
 * The registry as the bench's control plane, as in production: a registry process on its own
 * Postgres schema and Redis key prefix; the model is registered through the admin API, prepared
 * (READY), bound to the endpoint, and the snapshot the gateway and worker apply is the registry's
 * own GET /v1/config/snapshot. Gateways and workers do not sync live from the registry yet, so the
 * bench hands them that snapshot as a file, with the worker's static address added.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packBundle } from '@modelgate/model-store';
import {
  type ServiceProcess,
  ensureFixture,
  freePort,
  startServiceProcess,
  waitFor,
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

/** A registry process that holds the bench's model and endpoint. */
export interface RegistryControlPlane {
  snapshotPath: string;
  pid: number;
  note: string;
  stop(): Promise<void>;
}

type Attempt = { ok: true; plane: RegistryControlPlane } | { ok: false; reason: string };

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Starts the registry and registers `deployment`, or says why it could not (and leaves nothing behind). */
export async function tryRegistryControlPlane(
  dir: string,
  deployment: Deployment,
  workerAddress: string,
): Promise<Attempt> {
  if (!existsSync(REGISTRY_MAIN)) return { ok: false, reason: `${REGISTRY_MAIN} is not built` };
  const id = randomBytes(4).toString('hex');
  const schema = `bench_${id}`;
  const token = `bench-admin-token-${id}-0123456789`;
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
    REGISTRY_BOOTSTRAP_TOKEN: token,
    REGISTRY_MIGRATE_ON_START: 'true',
    REGISTRY_ARTIFACT_DIR: join(dir, 'registry-artifacts'),
    REGISTRY_CACHE_DIR: join(dir, 'registry-cache'),
    REGISTRY_ARTIFACT_ROOTS: [join(REPO_ROOT, '.cache'), dir].join(','),
    REGISTRY_LOG_LEVEL: 'warn',
  });
  const stop = async () => {
    await registry.stop();
    await dropSchema(schema);
    await deleteKeys(keyPrefix);
  };
  try {
    const fixtureDir = await ensureFixture(deployment.fixture);
    const snapshotPath = await registerAndFetchSnapshot(
      url,
      token,
      dir,
      deployment,
      workerAddress,
      fixtureDir,
      registry,
    );
    return {
      ok: true,
      plane: {
        snapshotPath,
        pid: registry.child.pid ?? -1,
        note:
          'registered through the registry admin API (POST /v1/models → READY, POST /v1/endpoints); gateway and ' +
          'worker read its GET /v1/config/snapshot as a file (live sync not built yet), worker address added statically',
        stop,
      },
    };
  } catch (error) {
    await stop().catch(() => undefined);
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { ok: false, reason: `registry attempt failed: ${message}` };
  }
}

async function registerAndFetchSnapshot(
  url: string,
  token: string,
  dir: string,
  deployment: Deployment,
  workerAddress: string,
  fixtureDir: string,
  registry: ServiceProcess,
): Promise<string> {
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
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

  const onnx = join(fixtureDir, 'onnx', 'model.onnx');
  const files: Record<string, Uint8Array> = {};
  for (const name of ['tokenizer.json', 'tokenizer_config.json', 'config.json', 'special_tokens_map.json']) {
    files[name] = await readFile(join(fixtureDir, name));
  }
  const bundle = packBundle(files);
  await mkdir(dir, { recursive: true });
  const bundlePath = join(dir, 'registry-tokenizer.tar');
  await writeFile(bundlePath, bundle);
  await call('POST', '/v1/models', {
    name: deployment.model,
    version: 1,
    task: 'text-classification',
    artifact: { uri: pathToFileURL(onnx).href, sha256: sha256(await readFile(onnx)) },
    tokenizer: { uri: pathToFileURL(bundlePath).href, sha256: sha256(bundle) },
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
  if (!status.startsWith('READY')) throw new Error(`model preparation ended ${status}`);
  await call('POST', '/v1/endpoints', {
    name: deployment.endpoint,
    task: 'text-classification',
    model: `${deployment.model}:1`,
  });
  const snapshot = (await call('GET', '/v1/config/snapshot')) as Record<string, unknown>;
  snapshot.workerGroups = [{ name: 'default', addresses: [workerAddress] }];
  const path = join(dir, 'registry-snapshot.json');
  await writeFile(path, JSON.stringify(snapshot, null, 2));
  return path;
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
