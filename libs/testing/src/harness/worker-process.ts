import { createHash } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type ServiceProcess,
  ensureFixture,
  findRepoRoot,
  freePort,
  startServiceProcess,
  waitFor,
} from '@modelgate/testing';
import { OipTestClient } from './oip-client.js';

export const WORKER_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** sha256 (hex) of a file. */
export async function sha256Of(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}

/** A model entry of a test snapshot. */
export interface TestModel {
  name: string;
  fixture: string;
  task?: string;
  sha256?: string;
  batching?: Record<string, unknown>;
  executionProviders?: string[];
  instances?: number;
}

/** Writes a ConfigSnapshot for `models` and returns its path. */
export async function writeSnapshot(dir: string, models: TestModel[]): Promise<string> {
  const entries = await Promise.all(
    models.map(async (model) => {
      const fixtureDir = await ensureFixture(model.fixture);
      const onnx = join(fixtureDir, 'onnx', 'model.onnx');
      const tokenizer = join(fixtureDir, 'tokenizer.json');
      return {
        id: `${model.name}:1`,
        name: model.name,
        version: '1',
        task: model.task ?? 'text-classification',
        artifact: { uri: `file://${onnx}`, sha256: model.sha256 ?? (await sha256Of(onnx)) },
        tokenizer: { uri: `file://${tokenizer}`, sha256: await sha256Of(tokenizer) },
        batching: model.batching ?? {},
        runtime: {
          executionProviders: model.executionProviders ?? ['cpu'],
          instances: model.instances ?? 1,
          intraOpThreads: 1,
        },
      };
    }),
  );
  const path = join(dir, 'snapshot.json');
  await writeFile(path, JSON.stringify({ revision: 1, models: entries, endpoints: [] }, null, 2));
  return path;
}

/** A worker process on free ports serving `models`, with test hooks on. */
export interface RunningWorker {
  process: ServiceProcess;
  client: OipTestClient;
  grpcAddress: string;
  httpUrl: string;
  metrics(): Promise<string>;
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

export async function startWorker(
  models: TestModel[],
  env: Record<string, string> = {},
): Promise<RunningWorker> {
  const dir = await mkdtemp(join(tmpdir(), 'modelgate-worker-'));
  const snapshot = await writeSnapshot(dir, models);
  const [grpcPort, httpPort] = [await freePort(), await freePort()];
  const process = startServiceProcess(WORKER_MAIN, {
    WORKER_HOST: '127.0.0.1',
    WORKER_GRPC_PORT: String(grpcPort),
    WORKER_HTTP_PORT: String(httpPort),
    WORKER_CONFIG_FILE: snapshot,
    WORKER_CACHE_DIR: join(dir, 'cache'),
    WORKER_ARTIFACT_ROOTS: join(findRepoRoot(), '.cache'),
    WORKER_TEST_HOOKS: 'true',
    WORKER_DRAIN_TIMEOUT_MS: '20000',
    ...env,
  });
  const grpcAddress = `127.0.0.1:${grpcPort}`;
  const client = new OipTestClient(grpcAddress);
  await waitFor(async () => (await client.call<{ ready: boolean }>('ServerReady', {})).ready, {
    timeoutMs: 60_000,
    describe: () => process.output(),
  });
  const httpUrl = `http://127.0.0.1:${httpPort}`;
  return {
    process,
    client,
    grpcAddress,
    httpUrl,
    metrics: async () => (await fetch(`${httpUrl}/metrics`)).text(),
    async stop(signal = 'SIGTERM') {
      client.close();
      return process.stop(signal);
    },
  };
}

/** The value of a Prometheus sample line `name{labels} value`, or 0. */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (!rest.startsWith('{') && !rest.startsWith(' ')) continue;
    if (wanted.every((pair) => rest.includes(pair))) return Number(line.split(' ').pop());
  }
  return 0;
}
