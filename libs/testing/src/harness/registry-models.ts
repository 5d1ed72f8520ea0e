// Models in a test registry: a fixture's registration body, and waiting for its preparation.
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AdminClient } from '@modelgate/admin-client';
import {
  type ModelTask,
  type ModelView,
  type RegisterModelRequest,
  TOKENIZER_BUNDLE_FILES,
} from '@modelgate/contracts';
import { packBundle } from '@modelgate/model-store';
import { ensureFixture, type FixtureName } from '@modelgate/fixtures';
import { waitFor } from './service-process.js';

/** sha256 (hex) of bytes. */
export function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * A registration body for a fixture: its model.onnx by file:// URI, and its tokenizer files packed
 * into a bundle written to `filesDir` (an artifact root of the test registry).
 */
export async function fixtureRegistration(
  fixture: FixtureName,
  name: string,
  task: ModelTask,
  filesDir: string,
  /** Keys merged into the fixture's tokenizer_config.json (a tokenizer of other limits). */
  tokenizerConfig?: object,
): Promise<RegisterModelRequest> {
  const dir = await ensureFixture(fixture);
  const onnx = join(dir, 'onnx', 'model.onnx');
  const bundleFiles: Record<string, Uint8Array> = {};
  for (const file of TOKENIZER_BUNDLE_FILES) {
    const bytes = await readFile(join(dir, file)).catch(() => undefined);
    if (bytes !== undefined) bundleFiles[file] = bytes;
  }
  if (tokenizerConfig !== undefined) {
    const given = JSON.parse(
      Buffer.from(bundleFiles['tokenizer_config.json'] ?? '{}').toString('utf8'),
    ) as object;
    bundleFiles['tokenizer_config.json'] = Buffer.from(JSON.stringify({ ...given, ...tokenizerConfig }));
  }
  const bundle = packBundle(bundleFiles);
  await mkdir(filesDir, { recursive: true });
  const bundlePath = join(filesDir, `${fixture}-${sha256(bundle).slice(0, 12)}-tokenizer.tar`);
  await writeFile(bundlePath, bundle);
  return {
    name,
    task,
    artifact: { uri: pathToFileURL(onnx).href, sha256: sha256(await readFile(onnx)) },
    // A raw model is served as tensors: it is registered without one.
    ...(task === 'raw' ? {} : { tokenizer: { uri: pathToFileURL(bundlePath).href, sha256: sha256(bundle) } }),
    batching: { maxBatchSize: 8 },
  };
}

/** Waits until model `id` (name:version) reaches READY or FAILED and returns it. */
export async function waitForPrepared(
  client: AdminClient,
  id: string,
  timeoutMs = 60_000,
): Promise<ModelView> {
  const [name = '', version = ''] = id.split(':');
  let last: ModelView | undefined;
  await waitFor(
    async () => {
      last = await client.getModel({ name, version });
      return last.status === 'READY' || last.status === 'FAILED';
    },
    { timeoutMs, intervalMs: 100, describe: () => JSON.stringify(last) },
  );
  return last!;
}
