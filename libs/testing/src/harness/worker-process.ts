import { createHash } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { type DecodingDefaults, readGenerationDefaults } from '@modelgate/generation';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOKENIZER_BUNDLE_FILES } from '@modelgate/contracts';
import { packBundle } from '@modelgate/model-store';
import { modelInputNames, modelOutputs } from '@modelgate/fixtures';
import { ensureFixture, findRepoRoot } from '@modelgate/fixtures';
import { DECODER_MODEL_FILE, ENCODER_MODEL_FILE, MODEL_FILE } from '@modelgate/fixtures';
import { type FixtureSpec, getFixtureSpec } from '@modelgate/fixtures';
import { PIXEL_VALUES, pixelValuesDims } from '@modelgate/fixtures';
import { freePort } from './free-port.js';
import { type ServiceProcess, startServiceProcess, waitForService } from './service-process.js';
import { OipTestClient } from './oip-test-client.js';

/** The built worker entry point. */
export const WORKER_MAIN = join(findRepoRoot(), 'apps', 'worker', 'dist', 'main.js');

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
  /** Version string; default '1'. */
  version?: string;
  workerGroup?: string;
  batching?: Record<string, unknown>;
  executionProviders?: string[];
  instances?: number;
  /**
   * text-generation, image-to-text: the facts preparation records (ModelSpec.generation); by default the
   * fixture's positions and vocabulary, null to leave them out (a model prepared before them).
   */
  generation?: { maxPositions: number; vocabSize?: number } | null;
}

/** Snapshot parts besides the models. */
export interface SnapshotExtras {
  revision?: number;
  endpoints?: unknown[];
  workerGroups?: { name: string; addresses: string[] }[];
}

/**
 * Writes a ConfigSnapshot for `models` and returns its path. The tokenizer artifact is a ustar
 * bundle of the fixture's tokenizer.json, tokenizer_config.json and config.json, as the registry
 * publishes it; a fixture with ONNX external data lists its data file; inputs and outputs (and a
 * text-generation model's positions and vocabulary) are declared as model preparation would read them.
 */
export async function writeSnapshot(
  dir: string,
  models: TestModel[],
  extras: SnapshotExtras = {},
): Promise<string> {
  const entries = await Promise.all(
    models.map(async (model) => {
      const fixtureDir = await ensureFixture(model.fixture);
      const spec = getFixtureSpec(model.fixture);
      // A captioner's artifact is its decoder; its vision encoder is the `encoder` artifact.
      const captioner = spec.architecture === 'vision-encoder-decoder';
      const onnx = join(fixtureDir, captioner ? DECODER_MODEL_FILE : MODEL_FILE);
      const encoder = join(fixtureDir, ENCODER_MODEL_FILE);
      const bundle = await writeTokenizerBundle(fixtureDir, dir);
      const version = model.version ?? '1';
      const dataFile = spec.externalDataFile;
      return {
        id: `${model.name}:${version}`,
        name: model.name,
        version,
        task: model.task ?? 'text-classification',
        workerGroup: model.workerGroup ?? 'default',
        artifact: { uri: `file://${onnx}`, sha256: model.sha256 ?? (await sha256Of(onnx)) },
        ...(captioner ? { encoder: { uri: `file://${encoder}`, sha256: await sha256Of(encoder) } } : {}),
        ...(dataFile === undefined
          ? {}
          : {
              externalData: [
                {
                  name: dataFile,
                  uri: `file://${join(fixtureDir, 'onnx', dataFile)}`,
                  sha256: await sha256Of(join(fixtureDir, 'onnx', dataFile)),
                },
              ],
            }),
        tokenizer: { uri: `file://${bundle.path}`, sha256: bundle.sha256 },
        inputs: declaredInputs(spec),
        outputs: modelOutputs(spec).map((output) => ({
          name: output.name,
          datatype: 'FP32',
          dims: output.dims.map((d) => (typeof d === 'number' ? d : -1)),
        })),
        ...((model.task === 'text-generation' || model.task === 'image-to-text') && model.generation !== null
          ? {
              generation: model.generation ?? {
                maxPositions: spec.maxPositionEmbeddings,
                vocabSize: spec.vocabSize,
                // What preparation reads of generation_config.json (its decoding defaults).
                ...(model.task === 'text-generation' ? await generationDefaultsOf(fixtureDir) : {}),
              },
            }
          : {}),
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
  const snapshot = {
    revision: extras.revision ?? 1,
    models: entries,
    endpoints: extras.endpoints ?? [],
    ...(extras.workerGroups ? { workerGroups: extras.workerGroups } : {}),
  };
  await writeFile(path, JSON.stringify(snapshot, null, 2));
  return path;
}

/** A fixture's inputs as preparation declares them: ViT's FP32 pixel_values, else INT64 token tensors. */
function declaredInputs(spec: FixtureSpec): { name: string; datatype: string; dims: number[] }[] {
  if (spec.architecture === 'vit') {
    const dims = pixelValuesDims(spec).map((d) => (typeof d === 'number' ? d : -1));
    return [{ name: PIXEL_VALUES, datatype: 'FP32', dims }];
  }
  return modelInputNames(spec).map((name) => ({ name, datatype: 'INT64', dims: [-1, -1] }));
}

/** Packs a fixture's tokenizer files into a ustar bundle in `dir`, as the registry publishes it. */
export async function writeTokenizerBundle(
  fixtureDir: string,
  dir: string,
): Promise<{ path: string; sha256: string }> {
  const files: Record<string, Uint8Array> = {};
  for (const name of TOKENIZER_BUNDLE_FILES) {
    // Text fixtures have the first four, decoders generation_config.json, ViT config.json and
    // preprocessor_config.json.
    const bytes = await readFile(join(fixtureDir, name)).catch(() => undefined);
    if (bytes !== undefined) files[name] = bytes;
  }
  const bytes = packBundle(files);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const path = join(dir, `tokenizer-${sha256.slice(0, 12)}.tar`);
  await writeFile(path, bytes);
  return { path, sha256 };
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

/**
 * What a start waits for: `ready` (ServerReady true), or `settled` (the snapshot applied and every
 * model loaded or failed, ready or not: for workers meant to be unready).
 */
export type WorkerStartWait = 'ready' | 'settled';

export async function startWorker(
  models: TestModel[],
  env: Record<string, string> = {},
  until: WorkerStartWait = 'ready',
): Promise<RunningWorker> {
  const dir = await mkdtemp(join(tmpdir(), 'modelgate-worker-'));
  return startWorkerWithSnapshot(await writeSnapshot(dir, models), env, until);
}

/** A worker process on free ports (or WORKER_GRPC_PORT in `env`) serving the snapshot file. */
export async function startWorkerWithSnapshot(
  snapshot: string,
  env: Record<string, string> = {},
  until: WorkerStartWait = 'ready',
): Promise<RunningWorker> {
  const dir = await mkdtemp(join(tmpdir(), 'modelgate-worker-'));
  const [grpcPort, httpPort] = [env.WORKER_GRPC_PORT ?? String(await freePort()), await freePort()];
  const process = startServiceProcess(WORKER_MAIN, {
    WORKER_HOST: '127.0.0.1',
    WORKER_GRPC_PORT: String(grpcPort),
    WORKER_HTTP_PORT: String(httpPort),
    // A node following a registry reads no snapshot file (and refuses one).
    ...(env.REGISTRY_URL === undefined ? { WORKER_CONFIG_FILE: snapshot } : {}),
    WORKER_CACHE_DIR: join(dir, 'cache'),
    WORKER_ARTIFACT_ROOTS: join(findRepoRoot(), '.cache'),
    WORKER_TEST_HOOKS: 'true',
    WORKER_DRAIN_TIMEOUT_MS: '20000',
    ...env,
  });
  const grpcAddress = `127.0.0.1:${grpcPort}`;
  const client = new OipTestClient(grpcAddress);
  const httpUrl = `http://127.0.0.1:${httpPort}`;
  const settled = async (): Promise<boolean> => {
    const body = (await (await fetch(`${httpUrl}/health/ready`)).json()) as {
      revision: number | null;
      models: Record<string, string>;
    };
    return body.revision !== null && !Object.values(body.models).includes('LOADING');
  };
  try {
    await waitForService(
      process,
      until === 'ready'
        ? async () => (await client.call<{ ready: boolean }>('ServerReady', {})).ready
        : settled,
      60_000,
    );
  } catch (error) {
    client.close();
    throw error;
  }
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

/**
 * Batches `worker` has started for `model`: modelgate_batch_size_count, counted as each batch
 * leaves the queue, so a batch held by the test hook counts from the start of its hold.
 */
export async function batchesStarted(
  worker: Pick<RunningWorker, 'metrics'>,
  model: string,
  version = '1',
): Promise<number> {
  return metricValue(await worker.metrics(), 'modelgate_batch_size_count', { model, version });
}

/** The decoding defaults of a decoder fixture's generation_config.json, as preparation records them. */
async function generationDefaultsOf(
  fixtureDir: string,
): Promise<{ defaults?: DecodingDefaults; unsupportedDefaults?: string[] }> {
  const text = await readFile(join(fixtureDir, 'generation_config.json'), 'utf8').catch(() => '{}');
  const { defaults, unsupported } = readGenerationDefaults(JSON.parse(text) as Record<string, unknown>);
  return {
    ...(Object.keys(defaults).length > 0 ? { defaults } : {}),
    ...(unsupported.length > 0 ? { unsupportedDefaults: unsupported } : {}),
  };
}
