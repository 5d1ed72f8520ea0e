// The registry's own test harness: a migrated schema per test file, and the registry in this
// process (its sources, not dist). What needs no registry code is @modelgate/testing's.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger } from '@modelgate/observability';
import { findRepoRoot } from '@modelgate/fixtures';
import {
  ADMIN_TOKEN,
  type RunningRegistry,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  freePort,
  testAdminClient,
} from '@modelgate/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { runMigrations } from '../../src/database/migration-runner.js';
import { loadRegistryConfig } from '../../src/registry.config.js';
import { createRegistryApp } from '../../src/registry-app.js';

/** One test file's own schema, Redis key prefix and directories. */
export interface Isolation {
  schema: string;
  keyPrefix: string;
  dir: string;
  /** Env for a registry using them (no ports). */
  env: Record<string, string>;
  /** A Postgres client on the schema, for assertions. */
  sql<T>(text: string, values?: unknown[]): Promise<T[]>;
  dispose(): Promise<void>;
}

/** Creates a fresh schema (migrated unless `migrate` is false), a key prefix and temp dirs. */
export async function isolate(options: { migrate?: boolean } = {}): Promise<Isolation> {
  const id = randomBytes(5).toString('hex');
  const schema = `reg_${id}`;
  const keyPrefix = `mgtest-${id}`;
  const dir = await mkdtemp(join(tmpdir(), 'modelgate-registry-'));
  const env: Record<string, string> = {
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_SCHEMA: schema,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: keyPrefix,
    REGISTRY_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
    REGISTRY_ARTIFACT_DIR: join(dir, 'artifacts'),
    REGISTRY_CACHE_DIR: join(dir, 'cache'),
    REGISTRY_ARTIFACT_ROOTS: [join(findRepoRoot(), '.cache'), join(dir, 'files')].join(','),
    REGISTRY_RELAY_INTERVAL_MS: '200',
    REGISTRY_PREPARATION_BACKOFF_MS: '100',
    REGISTRY_LOG_LEVEL: 'error',
  };
  const pool = new pg.Pool({
    connectionString: TEST_DATABASE_URL,
    max: 2,
    options: `-c search_path=${schema}`,
  });
  if (options.migrate !== false) {
    await runMigrations(loadRegistryConfig(env), 'up');
  }
  return {
    schema,
    keyPrefix,
    dir,
    env,
    async sql<T>(text: string, values: unknown[] = []) {
      return (await pool.query(text, values)).rows as T[];
    },
    async dispose() {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
      await deleteKeys(keyPrefix);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL);
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

/**
 * Boots the registry in this process (Nest + Fastify on `port`, by default a free one). `prepare`
 * runs before listen.
 */
export async function startRegistryInProcess(
  env: Record<string, string>,
  prepare?: (app: NestFastifyApplication) => void,
  port?: number,
): Promise<RunningRegistry & { app: NestFastifyApplication }> {
  port ??= await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = loadRegistryConfig({ REGISTRY_PUBLIC_URL: url, ...env, REGISTRY_PORT: String(port) });
  const app = await createRegistryApp(
    config,
    createLogger({ app: 'registry', level: config.REGISTRY_LOG_LEVEL }),
  );
  prepare?.(app);
  await app.listen(port, '127.0.0.1');
  return {
    app,
    url,
    admin: testAdminClient(url, ADMIN_TOKEN),
    client: (token) => testAdminClient(url, token),
    stop: () => app.close(),
  };
}
