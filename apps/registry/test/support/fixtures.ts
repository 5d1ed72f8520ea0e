import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packBundle } from '@modelgate/model-store';
import { ensureFixture, type FixtureName, waitFor } from '@modelgate/testing';
import { type RegistryClient } from './registry-client.js';

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
  task: string,
  filesDir: string,
): Promise<Record<string, unknown>> {
  const dir = await ensureFixture(fixture);
  const onnx = join(dir, 'onnx', 'model.onnx');
  const bundleFiles: Record<string, Uint8Array> = {};
  for (const file of ['tokenizer.json', 'tokenizer_config.json', 'config.json', 'special_tokens_map.json']) {
    bundleFiles[file] = await readFile(join(dir, file));
  }
  const bundle = packBundle(bundleFiles);
  await mkdir(filesDir, { recursive: true });
  const bundlePath = join(filesDir, `${fixture}-tokenizer.tar`);
  await writeFile(bundlePath, bundle);
  return {
    name,
    task,
    artifact: { uri: pathToFileURL(onnx).href, sha256: sha256(await readFile(onnx)) },
    tokenizer: { uri: pathToFileURL(bundlePath).href, sha256: sha256(bundle) },
    batching: { maxBatchSize: 8 },
  };
}

/** A model as the API shows it (the fields tests read). */
export interface ModelBody {
  id: string;
  name: string;
  version: string;
  status: string;
  statusReason: string | null;
  labels: string[] | null;
  inputs: { name: string; datatype: string; dims: number[] }[];
  outputs: { name: string; datatype: string; dims: number[] }[];
  artifact: { uri: string; sha256: string };
  /** The hf:// source the files were imported from, if any. */
  source?: string | null;
  externalData?: { name: string; uri: string; sha256: string }[];
  tokenizer: { uri: string; sha256: string } | null;
  timings: Record<string, number> | null;
}

/** Waits until model `id` (name:version) reaches READY or FAILED and returns it. */
export async function waitForPrepared(
  client: RegistryClient,
  id: string,
  timeoutMs = 60_000,
): Promise<ModelBody> {
  const path = `/v1/models/${id.replace(':', '/')}`;
  let last: ModelBody | undefined;
  await waitFor(
    async () => {
      last = (await client.get<ModelBody>(path)).body;
      return last.status === 'READY' || last.status === 'FAILED';
    },
    { timeoutMs, intervalMs: 100, describe: () => JSON.stringify(last) },
  );
  return last!;
}
