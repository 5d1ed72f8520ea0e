import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiErrorBody } from '@modelgate/contracts';
import { type RunningRegistry } from '@modelgate/testing';
import { type Isolation, isolate, startRegistryInProcess } from './support/registry-harness.js';

describe('model upload limits', () => {
  let isolation: Isolation;
  let registry: RunningRegistry;

  beforeAll(async () => {
    isolation = await isolate();
    registry = await startRegistryInProcess({ ...isolation.env, REGISTRY_ARTIFACT_MAX_BYTES: '4096' });
  });

  afterAll(async () => {
    await registry?.stop();
    await isolation?.dispose();
  });

  const upload = async (form: FormData): Promise<{ status: number; body: ApiErrorBody }> => {
    const response = await fetch(`${registry.url}/v1/models/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${registry.admin.token}` },
      body: form,
    });
    return { status: response.status, body: (await response.json()) as ApiErrorBody };
  };

  it('answers 413 for a model.onnx over REGISTRY_ARTIFACT_MAX_BYTES and keeps nothing of it', async () => {
    const form = new FormData();
    form.set('name', 'big');
    form.set('task', 'raw');
    form.set('model.onnx', new Blob([randomBytes(64 * 1024)]), 'model.onnx');
    const response = await upload(form);
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const stored = await readdir(join(isolation.dir, 'artifacts', 'sha256')).catch(() => []);
    expect(stored).toEqual([]);
    expect(await readdir(join(isolation.dir, 'artifacts', 'tmp')).catch(() => [])).toEqual([]);
  });

  it('answers 400 naming bad form fields, and 415 for a JSON body', async () => {
    const form = new FormData();
    form.set('name', 'small');
    form.set('task', 'raw');
    form.set('batching', '{not json');
    form.set('model.onnx', new Blob([randomBytes(16)]), 'model.onnx');
    const response = await upload(form);
    expect(response.status).toBe(400);
    expect(response.body.error.message).toBe('batching: must be JSON');
    const json = await registry.admin.post<ApiErrorBody>('/v1/models/upload', { name: 'x' });
    expect(json.status).toBe(415);
  });

  it('answers 400 for a field or file given twice instead of keeping the last', async () => {
    const form = new FormData();
    form.append('name', 'first');
    form.append('name', 'second');
    form.set('task', 'raw');
    form.append('model.onnx', new Blob([randomBytes(16)]), 'model.onnx');
    form.append('model.onnx', new Blob([randomBytes(16)]), 'model.onnx');
    const response = await upload(form);
    expect(response.status).toBe(400);
    expect(response.body.error.message).toBe(
      "field 'name' is given twice; give it once; file 'model.onnx' is given twice; give it once",
    );
  });

  it('answers 400, not 500, for a multipart body cut short', async () => {
    const boundary = 'cut-short-boundary';
    const body =
      `--${boundary}\r\ncontent-disposition: form-data; name="name"\r\n\r\nshort\r\n` +
      `--${boundary}\r\ncontent-disposition: form-data; name="model.onnx"; filename="model.onnx"\r\n` +
      'content-type: application/octet-stream\r\n\r\npartial bytes';
    const response = await fetch(`${registry.url}/v1/models/upload`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${registry.admin.token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      body,
    });
    expect(response.status).toBe(400);
    const answer = (await response.json()) as ApiErrorBody;
    expect(answer.error.code).toBe('INVALID_ARGUMENT');
    expect(answer.error.message).toMatch(/^the multipart body could not be read: /);
  });

  it('answers 400 for tokenizer files sent with a raw model, which is served as tensors', async () => {
    const form = new FormData();
    form.set('name', 'tensors');
    form.set('task', 'raw');
    form.set('model.onnx', new Blob([randomBytes(16)]), 'model.onnx');
    form.set('tokenizer.json', new Blob(['{}']), 'tokenizer.json');
    const response = await upload(form);
    expect(response.status).toBe(400);
    expect(response.body.error.message).toBe(
      'tokenizer.json: is not used by a raw model (it is served as tensors, never tokenized); leave it out, or register the model with its task',
    );
  });
});
