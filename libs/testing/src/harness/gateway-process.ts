import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findRepoRoot } from '@modelgate/fixtures';
import { freePort } from './free-port.js';
import { type ServiceProcess, startServiceProcess, waitForService } from './service-process.js';

/** The built gateway entry point. */
export const GATEWAY_MAIN = join(findRepoRoot(), 'apps', 'gateway', 'dist', 'main.js');

/** A gateway process serving a snapshot file. */
export interface RunningGateway {
  process: ServiceProcess;
  url: string;
  /** POSTs JSON to `path`; returns status, headers and the parsed body. */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<HttpAnswer>;
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/**
 * Starts `node apps/gateway/dist/main.js` on a free port (or GATEWAY_PORT in `env`, e.g. to
 * replace a stopped gateway at its address) with one event loop, serving `snapshot`, and waits
 * until it has applied it (its /health/ready reports the revision).
 */
export async function startGateway(
  snapshot: string,
  env: Record<string, string> = {},
): Promise<RunningGateway> {
  const dir = await mkdtemp(join(tmpdir(), 'modelgate-gateway-'));
  const port = env.GATEWAY_PORT ?? String(await freePort());
  const process = startServiceProcess(GATEWAY_MAIN, {
    GATEWAY_HOST: '127.0.0.1',
    GATEWAY_PORT: port,
    GATEWAY_WORKERS: '1',
    // A node following a registry reads no snapshot file (and refuses one).
    ...(env.REGISTRY_URL === undefined ? { GATEWAY_CONFIG_FILE: snapshot } : {}),
    GATEWAY_CACHE_DIR: join(dir, 'cache'),
    GATEWAY_ARTIFACT_ROOTS: `${join(findRepoRoot(), '.cache')},${dirname(snapshot)}`,
    GATEWAY_LOG_LEVEL: 'warn',
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForService(
    process,
    async () => {
      const response = await fetch(`${url}/health/ready`);
      const body = (await response.json()) as { revision?: number | null };
      return typeof body.revision === 'number';
    },
    60_000,
  );
  return {
    process,
    url,
    async post(path, body, headers = {}) {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, headers: response.headers, body: parsed };
    },
    stop: (signal = 'SIGTERM') => process.stop(signal),
  };
}
