// A registry for tests: the shared Postgres and Redis, the bootstrap admin token, and the built
// registry (`npm run build`) started as its own process.
import { join } from 'node:path';
import { AdminClient } from '@modelgate/admin-client';
import { findRepoRoot } from '@modelgate/fixtures';
import { type ServiceProcess, startServiceProcess, waitForService } from './service-process.js';
import { freePort } from './free-port.js';

/** The registry built by `npm run build` (process tests). */
export const REGISTRY_MAIN = join(findRepoRoot(), 'apps', 'registry', 'dist', 'main.js');

/** Real Postgres and Redis on localhost, as integration tests use them; override for other machines. */
export const TEST_DATABASE_URL =
  process.env.MODELGATE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.MODELGATE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The admin token every test registry is bootstrapped with. */
export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/** `env` for a registry without Redis: no REDIS_URL, and none of the keys that act only beside it. */
export function withoutRedis(env: Record<string, string>): Record<string, string> {
  // The settings that act only through Redis go too: a registry without it refuses them.
  const { REDIS_URL: _url, REDIS_KEY_PREFIX: _prefix, REGISTRY_ROLLOUT_TICK_MS: _tick, ...rest } = env;
  return rest;
}

/** A registry running for a test. */
export interface RunningRegistry {
  url: string;
  admin: AdminClient;
  client(token?: string): AdminClient;
  stop(): Promise<void>;
}

/** Starts `dist/main.js` as its own process and waits until it is ready. */
export async function startRegistryProcess(
  env: Record<string, string>,
): Promise<RunningRegistry & { process: ServiceProcess }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = startServiceProcess(REGISTRY_MAIN, {
    REGISTRY_PUBLIC_URL: url,
    ...env,
    REGISTRY_HOST: '127.0.0.1',
    REGISTRY_PORT: String(port),
  });
  await waitForService(child, async () => (await fetch(`${url}/health/ready`)).ok, 30_000);
  return {
    process: child,
    url,
    admin: testAdminClient(url, ADMIN_TOKEN),
    client: (token) => testAdminClient(url, token),
    async stop() {
      await child.stop('SIGTERM');
    },
  };
}

/** The typed admin client of a test registry, with `token` (none when undefined). */
export function testAdminClient(url: string, token: string | undefined): AdminClient {
  return new AdminClient({ baseUrl: url, ...(token === undefined ? {} : { token }) });
}
