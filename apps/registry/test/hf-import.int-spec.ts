import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unpackBundle } from '@modelgate/model-store';
import { ensureFixture } from '@modelgate/fixtures';
import {
  hubFilesFromDirectory,
  type HubServer,
  startHubServer,
  sha256,
  waitForPrepared,
  type RunningRegistry,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiErrorBody, type ModelView } from '@modelgate/contracts';
import { type Isolation, isolate, startRegistryInProcess } from './support/registry-harness.js';

const HF_TOKEN = 'hf_test_token_0123456789abcdef';

/** A promise and the function that settles it. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

describe('models registered from hf://org/name[@revision], imported from a server laid out like the Hub', () => {
  let isolation: Isolation;
  let registry: RunningRegistry;
  let hub: HubServer;
  let externalDir: string;
  const slowRequested = signal();
  const slowReleased = signal();

  const register = async (body: Record<string, unknown>): Promise<ModelView> => {
    const response = await registry.admin.post<ModelView>('/v1/models', body);
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    return response.body;
  };
  const artifactBytes = async (uri: string): Promise<Uint8Array> => {
    const response = await fetch(uri, { headers: { authorization: `Bearer ${registry.admin.token}` } });
    expect(response.status).toBe(200);
    return new Uint8Array(await response.arrayBuffer());
  };

  beforeAll(async () => {
    isolation = await isolate();
    const sst2 = await hubFilesFromDirectory(await ensureFixture('tiny-bert-sst2'));
    externalDir = await ensureFixture('tiny-bert-sst2-external');
    const { 'onnx/model.onnx': onnx, ...tokenizerFiles } = sst2;
    const captioner = await hubFilesFromDirectory(await ensureFixture('tiny-vit-gpt2'));
    const { 'onnx/encoder_model.onnx': _encoder, ...captionerWithoutEncoder } = captioner;
    hub = await startHubServer(
      {
        'acme/tiny-external': { files: await hubFilesFromDirectory(externalDir), refs: ['v1'] },
        'acme/tiny-sst2': { files: sst2 },
        'acme/tiny-gpt2': { files: await hubFilesFromDirectory(await ensureFixture('tiny-gpt2')) },
        'acme/tiny-vit': { files: await hubFilesFromDirectory(await ensureFixture('tiny-vit')) },
        'acme/tiny-vit-gpt2': { files: captioner },
        'acme/no-encoder': { files: captionerWithoutEncoder },
        'acme/slow': { files: sst2 },
        'acme/no-onnx': { files: tokenizerFiles },
        'acme/graph-only': { files: { 'onnx/model.onnx': onnx! } },
        'acme/gated': { files: sst2, gated: true },
      },
      {
        token: HF_TOKEN,
        beforeAnswer: async ({ path }) => {
          if (
            path !== '/acme/slow/resolve/main/onnx/model.onnx' &&
            !/^\/acme\/slow\/resolve\/[0-9a-f]{40}\/onnx\/model\.onnx$/.test(path)
          )
            return;
          slowRequested.fire();
          await slowReleased.promise;
        },
      },
    );
    registry = await startRegistryInProcess({
      ...isolation.env,
      HF_ENDPOINT: hub.endpoint,
      HF_TOKEN,
      REGISTRY_ARTIFACT_ALLOWED_HOSTS: '127.0.0.1',
    });
  });

  afterAll(async () => {
    slowReleased.fire();
    await registry?.stop();
    await hub?.close();
    await isolation?.dispose();
  });

  it('imports onnx/model.onnx, its external data and the tokenizer files into its own artifact store, then prepares READY', async () => {
    const accepted = await register({
      name: 'ext',
      task: 'text-classification',
      source: 'hf://acme/tiny-external@v1',
    });
    expect(accepted).toMatchObject({
      status: 'PENDING',
      source: 'hf://acme/tiny-external@v1',
      artifact: null,
    });

    const ready = await waitForPrepared(registry.admin, accepted.id);
    expect(ready.status, ready.statusReason ?? '').toBe('READY');
    const onnx = await readFile(join(externalDir, 'onnx', 'model.onnx'));
    const data = await readFile(join(externalDir, 'onnx', 'model.onnx_data'));
    expect(ready.artifact).toEqual({
      uri: `${registry.url}/v1/artifacts/${sha256(onnx)}`,
      sha256: sha256(onnx),
    });
    expect(ready.externalData).toEqual([
      { name: 'model.onnx_data', uri: `${registry.url}/v1/artifacts/${sha256(data)}`, sha256: sha256(data) },
    ]);
    expect(ready.labels).toEqual(['NEGATIVE', 'POSITIVE']); // from the imported config.json
    expect(ready.timings?.importMs).toBeGreaterThanOrEqual(0);
    expect(sha256(await artifactBytes(ready.externalData[0]!.uri))).toBe(sha256(data));
    const bundle = unpackBundle(await artifactBytes(ready.tokenizer!.uri));
    expect(Object.keys(bundle).sort()).toEqual([
      'config.json',
      'special_tokens_map.json',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);

    const snapshot = (
      await registry.admin.get<{ models: { id: string; externalData?: unknown }[] }>('/v1/config/snapshot')
    ).body;
    expect(snapshot.models.find((model) => model.id === 'ext:1')?.externalData).toEqual(ready.externalData);
  });

  it('imports a decoder with its generation_config.json and prepares it READY as text-generation', async () => {
    const accepted = await register({ name: 'gpt', task: 'text-generation', source: 'hf://acme/tiny-gpt2' });
    const ready = await waitForPrepared(registry.admin, accepted.id);
    expect(ready.status, ready.statusReason ?? '').toBe('READY');
    const bundle = unpackBundle(await artifactBytes(ready.tokenizer!.uri));
    expect(Object.keys(bundle).sort()).toEqual([
      'config.json',
      'generation_config.json',
      'special_tokens_map.json',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    const dir = await ensureFixture('tiny-gpt2');
    expect(bundle['generation_config.json']).toEqual(await readFile(join(dir, 'generation_config.json')));
  });

  it('imports an image classifier without tokenizer.json, its preprocessor_config.json in the bundle, READY', async () => {
    const accepted = await register({
      name: 'vit',
      task: 'image-classification',
      source: 'hf://acme/tiny-vit',
    });
    const ready = await waitForPrepared(registry.admin, accepted.id);
    expect(ready.status, ready.statusReason ?? '').toBe('READY');
    expect(ready.labels).toEqual(['tabby cat', 'golden retriever', 'goldfish', 'sports car', 'espresso']);
    const bundle = unpackBundle(await artifactBytes(ready.tokenizer!.uri));
    expect(Object.keys(bundle).sort()).toEqual(['config.json', 'preprocessor_config.json']);
  });

  it('imports an image captioner: onnx/encoder_model.onnx as its encoder, onnx/decoder_model_merged.onnx as its artifact, READY', async () => {
    const accepted = await register({
      name: 'cap',
      task: 'image-to-text',
      source: 'hf://acme/tiny-vit-gpt2',
    });
    expect(accepted.encoder).toBeNull();
    const ready = await waitForPrepared(registry.admin, accepted.id);
    expect(ready.status, ready.statusReason ?? '').toBe('READY');
    const dir = await ensureFixture('tiny-vit-gpt2');
    // Digests, not bytes: a deep comparison of megabytes is slow.
    expect(sha256(await artifactBytes(ready.encoder!.uri))).toBe(
      sha256(await readFile(join(dir, 'onnx/encoder_model.onnx'))),
    );
    expect(sha256(await artifactBytes(ready.artifact!.uri))).toBe(
      sha256(await readFile(join(dir, 'onnx/decoder_model_merged.onnx'))),
    );
    const snapshot = await registry.admin.get<{ models: Array<{ id: string; encoder?: unknown }> }>(
      '/v1/config/snapshot',
    );
    expect(snapshot.body.models.find((model) => model.id === ready.id)?.encoder).toEqual(ready.encoder);
  });

  it('fails an image captioner from a repository without onnx/encoder_model.onnx, naming the file', async () => {
    const failed = await waitForPrepared(
      registry.admin,
      (await register({ name: 'cap-bare', task: 'image-to-text', source: 'hf://acme/no-encoder' })).id,
    );
    expect(failed.status).toBe('FAILED');
    expect(failed.statusReason).toContain('onnx/encoder_model.onnx');
  });

  it('refuses to import an image classifier from a repository without preprocessor_config.json, naming it', async () => {
    const failed = await waitForPrepared(
      registry.admin,
      (await register({ name: 'sst2-as-vit', task: 'image-classification', source: 'hf://acme/tiny-sst2' }))
        .id,
    );
    expect(failed.status).toBe('FAILED');
    expect(failed.statusReason).toContain(
      'has no preprocessor_config.json, which task image-classification needs',
    );
  });

  it('fetches every file after the first at the commit the revision resolved to, with the token to the Hub only', () => {
    const commit = hub.commitOf('acme/tiny-external');
    const seen = hub.requests.filter((request) => request.path.startsWith('/acme/tiny-external/'));
    expect(seen[0]?.path).toBe('/acme/tiny-external/resolve/v1/tokenizer.json');
    expect(seen.slice(1).map((request) => request.path)).toEqual([
      `/acme/tiny-external/resolve/${commit}/tokenizer_config.json`,
      `/acme/tiny-external/resolve/${commit}/config.json`,
      `/acme/tiny-external/resolve/${commit}/special_tokens_map.json`,
      `/acme/tiny-external/resolve/${commit}/generation_config.json`, // optional: a 404 here
      `/acme/tiny-external/resolve/${commit}/preprocessor_config.json`, // optional: a 404 here
      `/acme/tiny-external/resolve/${commit}/onnx/model.onnx`,
      `/acme/tiny-external/resolve/${commit}/onnx/model.onnx_data`,
    ]);
    expect(seen.every((request) => request.authorization === `Bearer ${HF_TOKEN}`)).toBe(true);
    const cdn = hub.requests.filter((request) => request.server === 'cdn');
    expect(cdn.length).toBeGreaterThanOrEqual(2); // the graph and its data are LFS files behind a redirect
    expect(cdn.every((request) => request.authorization === undefined)).toBe(true);
  });

  it('imports a repository without external data (onnx/model.onnx_data absent is fine), main by default', async () => {
    const accepted = await register({
      name: 'plain',
      task: 'text-classification',
      source: 'hf://acme/tiny-sst2',
    });
    expect(accepted.source).toBe('hf://acme/tiny-sst2@main');
    const ready = await waitForPrepared(registry.admin, accepted.id);
    expect(ready.status, ready.statusReason ?? '').toBe('READY');
    expect(ready.externalData).toEqual([]);
  });

  it('fails a repository without onnx/model.onnx, naming the file', async () => {
    const failed = await waitForPrepared(
      registry.admin,
      (await register({ name: 'no-onnx', task: 'text-classification', source: 'hf://acme/no-onnx' })).id,
    );
    expect(failed.status).toBe('FAILED');
    expect(failed.statusReason).toBe(
      `source: hf://acme/no-onnx@main (commit ${hub.commitOf('acme/no-onnx').slice(0, 12)}): ` +
        `the repository has no onnx/model.onnx (HTTP 404 from ${hub.endpoint})`,
    );
  });

  it('fails a repository without tokenizer.json for a text task, and imports it for raw tensors', async () => {
    const failed = await waitForPrepared(
      registry.admin,
      (await register({ name: 'graph-only', task: 'text-classification', source: 'hf://acme/graph-only' }))
        .id,
    );
    expect(failed.status).toBe('FAILED');
    expect(failed.statusReason).toMatch(
      /^source: hf:\/\/acme\/graph-only@main has no tokenizer\.json, which task text-classification needs/,
    );
    const raw = await waitForPrepared(
      registry.admin,
      (await register({ name: 'graph-only-raw', task: 'raw', source: 'hf://acme/graph-only' })).id,
    );
    expect(raw.status, raw.statusReason ?? '').toBe('READY');
    expect(raw.tokenizer).toBeNull();
    // A repository with tokenizer files, imported as raw tensors: they are not fetched and kept.
    const tensors = await waitForPrepared(
      registry.admin,
      (await register({ name: 'sst2-raw', task: 'raw', source: 'hf://acme/tiny-sst2' })).id,
    );
    expect(tensors.status, tensors.statusReason ?? '').toBe('READY');
    expect(tensors.tokenizer).toBeNull();
  });

  it('fails an unknown repository or revision, saying which', async () => {
    const repo = await waitForPrepared(
      registry.admin,
      (await register({ name: 'nope', task: 'raw', source: 'hf://acme/nope' })).id,
    );
    expect(repo.statusReason).toContain('repository acme/nope was not found at');
    const revision = await waitForPrepared(
      registry.admin,
      (await register({ name: 'nope-rev', task: 'raw', source: 'hf://acme/tiny-sst2@v9' })).id,
    );
    expect(revision.statusReason).toContain('revision "v9" of acme/tiny-sst2 was not found');
  });

  it('reads a gated repository with HF_TOKEN', async () => {
    const ready = await waitForPrepared(
      registry.admin,
      (await register({ name: 'gated', task: 'text-classification', source: 'hf://acme/gated' })).id,
    );
    expect(ready.status, ready.statusReason ?? '').toBe('READY');
  });

  it('answers the admin API while an import streams, and finishes it once the Hub answers', async () => {
    const accepted = await register({ name: 'slow', task: 'text-classification', source: 'hf://acme/slow' });
    await slowRequested.promise; // the download of onnx/model.onnx has begun and is held there
    const during = await registry.admin.get<ModelView>('/v1/models/slow/1');
    expect(during.status).toBe(200);
    expect(during.body).toMatchObject({ status: 'PREPARING', statusReason: 'importing hf://acme/slow@main' });
    expect((await registry.admin.get<ModelView[]>('/v1/models')).status).toBe(200);
    slowReleased.fire();
    expect((await waitForPrepared(registry.admin, accepted.id)).status).toBe('READY');
  });

  it.each([
    [{ source: 'hf://bert-base-uncased' }, 'source', /must name a repository as hf:\/\/<org>\/<name>/],
    [{ source: 'hf://acme/tiny/onnx/model.onnx' }, 'source', /names a path inside the repository/],
    [{ source: 'hf://acme/tiny@' }, 'source', /empty revision/],
    [{ source: 's3://bucket/key' }, 'source', /must be an hf:\/\/<org>\/<name>\[@<revision>\] URI/],
    [
      { source: 'hf://acme/tiny', artifact: { uri: 'file:///m.onnx', sha256: 'a'.repeat(64) } },
      'artifact',
      /comes from the source/,
    ],
    [{}, 'artifact', /give artifact \{uri, sha256\}, or source hf:\/\//],
    [
      { artifact: { uri: 'hf://acme/tiny', sha256: 'a'.repeat(64) } },
      'artifact.uri',
      /must be an absolute file:\/\//,
    ],
  ])('refuses %j at registration (400), naming %s', async (files, path, message) => {
    const response = await registry.admin.post<
      ApiErrorBody & { error: { issues?: { path: string; message: string }[] } }
    >('/v1/models', { name: 'refused', task: 'raw', ...files });
    expect(response.status).toBe(400);
    const issue = response.body.error.issues?.find((entry) => entry.path === path);
    expect(issue?.message, JSON.stringify(response.body)).toMatch(message);
  });
});

describe('hf:// registration behind the SSRF guard', () => {
  let isolation: Isolation;
  let registry: RunningRegistry;

  beforeAll(async () => {
    isolation = await isolate();
    registry = await startRegistryInProcess({ ...isolation.env, HF_ENDPOINT: 'http://127.0.0.1:9' });
  });

  afterAll(async () => {
    await registry?.stop();
    await isolation?.dispose();
  });

  it('refuses at registration a Hub endpoint on a loopback address that is not allowlisted', async () => {
    const response = await registry.admin.post<ApiErrorBody>('/v1/models', {
      name: 'local-hub',
      task: 'raw',
      source: 'hf://acme/tiny',
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ field: 'source' });
    expect(response.body.error.message).toMatch(
      /^source: the Hub endpoint http:\/\/127\.0\.0\.1:9\/ \(HF_ENDPOINT\) resolves to 127\.0\.0\.1, a loopback .* REGISTRY_ARTIFACT_ALLOWED_HOSTS/,
    );
  });
});
