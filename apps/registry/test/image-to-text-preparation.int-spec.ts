// Preparation of image-to-text models through a real registry (Postgres, Redis, BullMQ,
// onnxruntime): the tiny-vit-gpt2 vision-encoder-decoder export, uploaded or registered by file://
// URIs, is READY with its encoder in the config snapshot and served from /v1/artifacts; exports
// that cannot caption (a decoder without encoder_hidden_states, an encoder without
// last_hidden_state, no decoder_start_token_id) FAIL saying why; an encoder given to another task
// is refused up front.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type ApiErrorBody,
  type ModelView,
  type RegisterModelRequest,
  TOKENIZER_BUNDLE_FILES,
} from '@modelgate/contracts';
import { packBundle } from '@modelgate/model-store';
import { ensureFixture } from '@modelgate/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256, waitForPrepared, type RunningRegistry } from '@modelgate/testing';
import { type Isolation, isolate, startRegistryInProcess } from './support/registry-harness.js';

const ENCODER = 'onnx/encoder_model.onnx';
const DECODER = 'onnx/decoder_model_merged.onnx';

describe('image-to-text model preparation (BullMQ)', () => {
  let isolation: Isolation;
  let registry: RunningRegistry;
  let files: string;
  let dir: string;

  beforeAll(async () => {
    isolation = await isolate();
    files = join(isolation.dir, 'files');
    await mkdir(files, { recursive: true });
    dir = await ensureFixture('tiny-vit-gpt2');
    registry = await startRegistryInProcess(isolation.env);
  });

  afterAll(async () => {
    await registry?.stop();
    await isolation?.dispose();
  });

  /** A file of `path` (absolute) by file:// URI with its digest. */
  const fileRef = async (path: string) => ({
    uri: pathToFileURL(path).href,
    sha256: sha256(await readFile(path)),
  });

  /** The fixture's bundle files, with `replace` swapped in (undefined drops a file). */
  const bundle = async (name: string, replace: Record<string, Uint8Array | undefined> = {}) => {
    const entries: Record<string, Uint8Array> = {};
    for (const file of TOKENIZER_BUNDLE_FILES) {
      const bytes = file in replace ? replace[file] : await readFile(join(dir, file)).catch(() => undefined);
      if (bytes !== undefined) entries[file] = bytes;
    }
    const bytes = packBundle(entries);
    const path = join(files, `${name}.tar`);
    await writeFile(path, bytes);
    return { uri: pathToFileURL(path).href, sha256: sha256(bytes) };
  };

  const registration = async (name: string, overrides: Partial<RegisterModelRequest> = {}) => ({
    name,
    task: 'image-to-text' as const,
    artifact: await fileRef(join(dir, DECODER)),
    encoder: await fileRef(join(dir, ENCODER)),
    tokenizer: overrides.tokenizer ?? (await bundle(name)),
    ...overrides,
  });

  const prepare = async (body: object, id: string): Promise<ModelView> => {
    const response = await registry.admin.post<ModelView>('/v1/models', body);
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    return waitForPrepared(registry.admin, id);
  };

  const upload = (form: FormData) =>
    fetch(`${registry.url}/v1/models/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${registry.admin.token}` },
      body: form,
    });

  const snapshotModel = async (id: string) =>
    (
      await registry.admin.get<{ models: Array<Record<string, unknown>> }>('/v1/config/snapshot')
    ).body.models.find((model) => model['id'] === id);

  it('uploads the vision-encoder-decoder export and prepares it READY, the encoder in the snapshot for workers', async () => {
    const form = new FormData();
    form.set('name', 'captioner');
    form.set('task', 'image-to-text');
    for (const file of [ENCODER, DECODER, ...TOKENIZER_BUNDLE_FILES]) {
      const bytes = await readFile(join(dir, file)).catch(() => undefined);
      if (bytes === undefined) continue;
      const name = file.replace('onnx/', '');
      form.set(name, new Blob([bytes]), name);
    }
    const response = await upload(form);
    expect(response.status, await response.clone().text()).toBe(202);
    const ready = await waitForPrepared(registry.admin, 'captioner:1');
    expect(ready.status, ready.statusReason ?? '').toBe('READY');
    const encoderDigest = sha256(await readFile(join(dir, ENCODER)));
    expect(ready.artifact?.sha256).toBe(sha256(await readFile(join(dir, DECODER))));
    expect(ready.encoder).toEqual({
      uri: `${registry.url}/v1/artifacts/${encoderDigest}`,
      sha256: encoderDigest,
    });
    expect(ready.inputs).toContainEqual({
      name: 'encoder_hidden_states',
      datatype: 'FP32',
      dims: [-1, -1, 64],
    });
    expect(ready.timings?.warmUpMs).toBeGreaterThanOrEqual(0);

    expect(await snapshotModel('captioner:1')).toMatchObject({
      task: 'image-to-text',
      artifact: ready.artifact,
      encoder: ready.encoder,
      generation: { maxPositions: 128, vocabSize: 50257 },
      // The size preprocessor_config.json gives every image (workers warm dynamic-size exports up on it).
      image: { channels: 3, height: 224, width: 224 },
    });
    const served = await fetch(ready.encoder!.uri, {
      headers: { authorization: `Bearer ${registry.admin.token}` },
    });
    expect(served.status).toBe(200);
    expect(sha256(new Uint8Array(await served.arrayBuffer()))).toBe(encoderDigest);
  });

  it('refuses an upload without the encoder, with model.onnx, or with an encoder for another task, naming the part', async () => {
    const form = (task: string, parts: Record<string, string>) => {
      const body = new FormData();
      body.set('name', 'parts');
      body.set('task', task);
      for (const [name, file] of Object.entries(parts)) body.set(name, new Blob([file]), name);
      return body;
    };
    const cases: [FormData, string][] = [
      [
        form('image-to-text', { 'decoder_model_merged.onnx': 'd', 'tokenizer.json': '{}' }),
        'encoder_model.onnx: the file is required for task image-to-text',
      ],
      [
        form('image-to-text', { 'model.onnx': 'm', 'encoder_model.onnx': 'e' }),
        'model.onnx: task image-to-text takes encoder_model.onnx and decoder_model_merged.onnx (a vision-encoder-decoder export), not model.onnx',
      ],
      [
        form('text-classification', { 'model.onnx': 'm', 'encoder_model.onnx': 'e', 'tokenizer.json': '{}' }),
        'encoder_model.onnx: is for image-to-text models only (this one is text-classification); upload model.onnx',
      ],
    ];
    for (const [body, message] of cases) {
      const response = await upload(body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as ApiErrorBody).error.message).toBe(message);
    }
  });

  it('registers the export by file:// URIs READY, and refuses an encoder on another task or its absence', async () => {
    const ready = await prepare(await registration('captioner-uri'), 'captioner-uri:1');
    expect(ready.status, ready.statusReason ?? '').toBe('READY');
    expect((await snapshotModel('captioner-uri:1'))?.['encoder']).toEqual(ready.encoder);

    const { encoder, ...withoutEncoder } = await registration('no-encoder');
    const missing = await registry.admin.post<ApiErrorBody>('/v1/models', withoutEncoder);
    expect(missing.status).toBe(400);
    expect(missing.body.error.field).toBe('encoder');
    expect(missing.body.error.message).toContain('is required for task image-to-text');

    const sst2 = await registry.admin.post<ApiErrorBody>('/v1/models', {
      ...(await registration('sst2-encoder')),
      task: 'text-classification',
      encoder,
    });
    expect(sst2.status).toBe(400);
    expect(sst2.body.error.field).toBe('encoder');
    expect(sst2.body.error.message).toContain(
      'is for image-to-text models only (this one is text-classification)',
    );
  });

  it('fails a text-generation decoder without encoder_hidden_states as the decoder, naming the input', async () => {
    const gpt2 = await ensureFixture('tiny-gpt2');
    const failed = await prepare(
      await registration('no-cross-attention', { artifact: await fileRef(join(gpt2, 'onnx', 'model.onnx')) }),
      'no-cross-attention:1',
    );
    expect(failed.status).toBe('FAILED');
    expect(failed.statusReason).toMatch(
      /task image-to-text needs a decoder with an input named encoder_hidden_states \(the encoder's last_hidden_state, which its cross-attention reads\); the decoder has inputs input_ids/,
    );
  });

  it('fails an image classifier as the encoder, saying it has no last_hidden_state', async () => {
    const vit = await ensureFixture('tiny-vit');
    const failed = await prepare(
      await registration('classifier-encoder', { encoder: await fileRef(join(vit, 'onnx', 'model.onnx')) }),
      'classifier-encoder:1',
    );
    expect(failed.status).toBe('FAILED');
    expect(failed.statusReason).toBe(
      'task image-to-text needs an encoder with an FP32 output named last_hidden_state [batch, sequence, hidden] ' +
        '(the states the decoder attends to); the encoder has outputs logits (FP32 [-1, 5])',
    );
  });

  it('fails an export whose config.json and generation_config.json give no start token (decoder_start_token_id, bos_token_id)', async () => {
    const strip = async (file: string) => {
      const json = JSON.parse(await readFile(join(dir, file), 'utf8')) as Record<string, unknown>;
      for (const config of [json, json.decoder]) {
        if (typeof config !== 'object' || config === null) continue;
        delete (config as Record<string, unknown>).decoder_start_token_id;
        delete (config as Record<string, unknown>).bos_token_id;
      }
      return new TextEncoder().encode(JSON.stringify(json));
    };
    const failed = await prepare(
      await registration('no-start', {
        tokenizer: await bundle('no-start', {
          'config.json': await strip('config.json'),
          'generation_config.json': await strip('generation_config.json'),
        }),
      }),
      'no-start:1',
    );
    expect(failed.status).toBe('FAILED');
    expect(failed.statusReason).toBe(
      'task image-to-text: neither generation_config.json nor config.json (or its decoder) names a ' +
        'decoder_start_token_id or bos_token_id',
    );
  });
});
