import { openAsBlob } from 'node:fs';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { type AdminClient, modelUploadForm, type ModelUploadFile } from '@modelgate/admin-client';
import { type ModelView, TOKENIZER_BUNDLE_FILES } from '@modelgate/contracts';
import { ensureFixtureWithStatus } from '@modelgate/fixtures';
import { type WaitOptions, WaitFailed, waitUntil } from '../processes/wait-until.js';

/** Name of the demo model and of its endpoint. */
export const DEMO_NAME = 'demo';
/** The generated fixture registered as the demo model: BERT-shaped, random weights. */
export const DEMO_FIXTURE = 'tiny-bert-sst2';
const DEMO_TASK = 'text-classification';

/** Tokenizer-side files of a Hugging Face export that the registry bundles for the gateway. */
const TOKENIZER_FILES = TOKENIZER_BUNDLE_FILES;

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * Makes sure model `demo` and endpoint `demo` exist, without touching them when they do: the
 * first start uploads the generated fixture and creates the endpoint; later starts find both and
 * say so. Resolves with the model id once it is READY and routed.
 */
export async function ensureDemo(
  client: AdminClient,
  say: (line: string) => void,
  wait: Omit<WaitOptions, 'what'>,
  /** The worker group of the launcher's worker (WORKER_GROUP): the demo model is registered in it. */
  workerGroup: string,
): Promise<string> {
  const model = await ensureDemoModel(client, say, workerGroup);
  const ready = await waitUntil(
    async () => {
      const current = await client.getModel({ name: model.name, version: model.version });
      if (current.status === 'FAILED') {
        throw new WaitFailed(`model ${current.id} FAILED: ${current.statusReason ?? 'no reason given'}`);
      }
      return current.status === 'READY' ? current : undefined;
    },
    { ...wait, what: `model ${model.id} to be prepared` },
  );
  const endpoint = await client.findEndpoint(DEMO_NAME);
  if (endpoint !== undefined) {
    const routes = endpoint.routes.map((route) => `${route.model} ${route.weight}%`).join(', ');
    say(`endpoint ${DEMO_NAME} already exists (routes: ${routes})`);
  } else {
    await client.createEndpoint({ name: DEMO_NAME, task: DEMO_TASK, model: ready.id });
    say(`created endpoint ${DEMO_NAME} → ${ready.id}`);
  }
  return ready.id;
}

async function ensureDemoModel(
  client: AdminClient,
  say: (line: string) => void,
  workerGroup: string,
): Promise<ModelView> {
  const versions = await client.listModels(DEMO_NAME);
  const latest = versions.reduce<ModelView | undefined>(
    (best, model) => (best === undefined || Number(model.version) > Number(best.version) ? model : best),
    undefined,
  );
  if (latest !== undefined) {
    if (latest.workerGroup !== workerGroup) {
      // No worker of this launcher would ever load it: the demo could never be served.
      throw new WaitFailed(
        `model ${latest.id} belongs to worker group '${latest.workerGroup}', but this standalone's worker serves ` +
          `'${workerGroup}' (WORKER_GROUP): start with WORKER_GROUP=${latest.workerGroup}, or with a fresh MODELGATE_HOME`,
      );
    }
    say(`model ${latest.id} already exists (${latest.status})`);
    return latest;
  }
  const fixture = await ensureFixtureWithStatus(DEMO_FIXTURE);
  if (fixture.generated) say(`generated the demo model files in ${fixture.dir}`);
  const model = await client.uploadModel(
    modelUploadForm({ name: DEMO_NAME, task: DEMO_TASK, workerGroup }, await exportFiles(fixture.dir)),
  );
  say(`registered model ${model.id} (uploaded from ${fixture.dir})`);
  return model;
}

/** model.onnx (at the top or in onnx/, as exporters place it) and the tokenizer files present. */
async function exportFiles(dir: string): Promise<ModelUploadFile[]> {
  const onnx = (await exists(join(dir, 'model.onnx')))
    ? join(dir, 'model.onnx')
    : join(dir, 'onnx', 'model.onnx');
  const files: ModelUploadFile[] = [{ name: 'model.onnx', blob: await openAsBlob(onnx) }];
  for (const name of TOKENIZER_FILES) {
    const path = join(dir, name);
    if (await exists(path)) files.push({ name, blob: await openAsBlob(path) });
  }
  return files;
}
