import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureFixture } from '@modelgate/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureRegistration, sha256, waitForPrepared, type RunningRegistry } from '@modelgate/testing';
import { type ApiErrorBody, type ModelView } from '@modelgate/contracts';
import { type Isolation, isolate, startRegistryInProcess } from './support/registry-harness.js';

const UPLOAD_FILES = [
  'onnx/model.onnx',
  'onnx/model.onnx_data',
  'tokenizer.json',
  'tokenizer_config.json',
  'config.json',
  'special_tokens_map.json',
];

describe('models whose weights are ONNX external data (model.onnx_data)', () => {
  let isolation: Isolation;
  let registry: RunningRegistry;
  let dir: string;
  let registration: Record<string, unknown>;
  let data: { uri: string; sha256: string };

  const register = async (body: Record<string, unknown>): Promise<ModelView> => {
    const response = await registry.admin.post<ModelView>('/v1/models', body);
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    return waitForPrepared(registry.admin, response.body.id);
  };

  beforeAll(async () => {
    isolation = await isolate();
    registry = await startRegistryInProcess(isolation.env);
    dir = await ensureFixture('tiny-bert-sst2-external');
    const path = join(dir, 'onnx', 'model.onnx_data');
    data = { uri: pathToFileURL(path).href, sha256: sha256(await readFile(path)) };
    registration = await fixtureRegistration(
      'tiny-bert-sst2-external',
      'ext',
      'text-classification',
      join(isolation.dir, 'files'),
    );
  });

  afterAll(async () => {
    await registry?.stop();
    await isolation?.dispose();
  });

  it('uploads model.onnx_data beside model.onnx into the artifact store and prepares READY', async () => {
    const form = new FormData();
    form.set('name', 'uploaded');
    form.set('task', 'text-classification');
    for (const file of UPLOAD_FILES) {
      const name = file.replace('onnx/', '');
      form.set(name, new Blob([await readFile(join(dir, file))]), name);
    }
    const response = await fetch(`${registry.url}/v1/models/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${registry.admin.token}` },
      body: form,
    });
    expect(response.status).toBe(202);
    const uploaded = (await response.json()) as ModelView;
    expect(uploaded.externalData).toEqual([
      { name: 'model.onnx_data', uri: `${registry.url}/v1/artifacts/${data.sha256}`, sha256: data.sha256 },
    ]);
    const ready = await waitForPrepared(registry.admin, uploaded.id);
    expect(ready.status, ready.statusReason ?? '').toBe('READY');
    expect(ready.inputs.map((input) => input.name)).toEqual([
      'input_ids',
      'attention_mask',
      'token_type_ids',
    ]);
  });

  it('registers the external data file by URI and SHA-256 beside the model file', async () => {
    const ready = await register({
      ...registration,
      name: 'by-uri',
      externalData: [{ name: 'model.onnx_data', ...data }],
    });
    expect(ready.status, ready.statusReason ?? '').toBe('READY');
    expect(ready.externalData).toEqual([{ name: 'model.onnx_data', ...data }]);
    const snapshot = (
      await registry.admin.get<{ models: { id: string; externalData?: unknown }[] }>('/v1/config/snapshot')
    ).body;
    expect(snapshot.models.find((model) => model.id === 'by-uri:1')?.externalData).toEqual([
      { name: 'model.onnx_data', ...data },
    ]);
  });

  it('fails a graph whose external data was not registered, or under another name, saying which file it reads', async () => {
    const message =
      'model.onnx keeps weights in the ONNX external data file "model.onnx_data", which was not registered with it';
    const without = await register({ ...registration, name: 'without-data' });
    expect(without.status).toBe('FAILED');
    expect(without.statusReason).toContain(message);
    const renamed = await register({
      ...registration,
      name: 'renamed-data',
      externalData: [{ name: 'weights.bin', ...data }],
    });
    expect(renamed.status).toBe('FAILED');
    expect(renamed.statusReason).toContain(message);
  });

  it('refuses at registration external data outside the artifact roots, or with a name that leaves the model directory', async () => {
    const outside = await registry.admin.post<ApiErrorBody>('/v1/models', {
      ...registration,
      name: 'outside',
      externalData: [{ name: 'model.onnx_data', uri: 'file:///etc/hostname', sha256: data.sha256 }],
    });
    expect(outside.status).toBe(400);
    expect(outside.body.error).toMatchObject({ field: 'externalData[0].uri' });
    expect(outside.body.error.message).toContain('outside the allowed file roots');

    const escaping = await registry.admin.post<ApiErrorBody & { error: { issues?: { path: string }[] } }>(
      '/v1/models',
      { ...registration, name: 'escaping', externalData: [{ name: '../model.onnx_data', ...data }] },
    );
    expect(escaping.status).toBe(400);
    expect(escaping.body.error.issues?.map((issue) => issue.path)).toEqual(['externalData[0].name']);
  });
});
