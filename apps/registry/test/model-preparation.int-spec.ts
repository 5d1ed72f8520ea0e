import { randomBytes } from 'node:crypto';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { unpackBundle } from '@modelgate/model-store';
import { ensureFixture } from '@modelgate/fixtures';
import {
  freePort,
  fixtureRegistration,
  sha256,
  waitForPrepared,
  type RunningRegistry,
  withoutRedis,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_BUS, type InProcessConfigBus } from '../src/outbox/config-bus.js';
import { type ApiErrorBody, type ModelView } from '@modelgate/contracts';
import { type Isolation, isolate, startRegistryInProcess } from './support/registry-harness.js';

/** A second loopback address, allowlisted, to reach a local HTTP server through the SSRF guard. */
const ALLOWED_LOOPBACK = '127.0.0.2';

describe('model preparation (BullMQ)', () => {
  let isolation: Isolation;
  let registry: RunningRegistry;
  let files: string;
  let server: Server;
  let serverUrl: string;

  beforeAll(async () => {
    isolation = await isolate();
    files = join(isolation.dir, 'files');
    registry = await startRegistryInProcess({
      ...isolation.env,
      REGISTRY_ARTIFACT_ALLOWED_HOSTS: ALLOWED_LOOPBACK,
    });
    const onnx = await readFile(join(await ensureFixture('tiny-bert-sst2'), 'onnx', 'model.onnx'));
    server = createServer((request, response) => {
      if (request.url === '/model.onnx') response.writeHead(200, { 'content-length': onnx.length }).end(onnx);
      else if (request.url === '/to-loopback')
        response.writeHead(302, { location: 'http://127.0.0.1:9/model.onnx' }).end();
      else response.writeHead(404).end();
    });
    const port = await freePort();
    await new Promise<void>((resolve) => server.listen(port, ALLOWED_LOOPBACK, resolve));
    serverUrl = `http://${ALLOWED_LOOPBACK}:${port}`;
  });

  afterAll(async () => {
    await registry?.stop();
    await new Promise((resolve) => server?.close(resolve));
    await isolation?.dispose();
  });

  const register = async (body: Record<string, unknown>): Promise<ModelView> => {
    const response = await registry.admin.post<ModelView>('/v1/models', body);
    expect(response.status).toBe(202);
    return waitForPrepared(registry.admin, response.body.id);
  };

  it('uploads a model directory, prepares it READY and serves its artifacts to token holders', async () => {
    const dir = await ensureFixture('tiny-distilbert-sst2');
    const form = new FormData();
    form.set('name', 'distil');
    form.set('task', 'text-classification');
    form.set('batching', JSON.stringify({ maxBatchSize: 4 }));
    for (const file of [
      'onnx/model.onnx',
      'tokenizer.json',
      'tokenizer_config.json',
      'config.json',
      'special_tokens_map.json',
    ]) {
      form.set(
        file.replace('onnx/', ''),
        new Blob([await readFile(join(dir, file))]),
        file.replace('onnx/', ''),
      );
    }
    const response = await fetch(`${registry.url}/v1/models/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${registry.admin.token}` },
      body: form,
    });
    expect(response.status).toBe(202);
    const uploaded = (await response.json()) as ModelView;
    const onnxBytes = await readFile(join(dir, 'onnx', 'model.onnx'));
    expect(uploaded.artifact).toEqual({
      uri: `${registry.url}/v1/artifacts/${sha256(onnxBytes)}`,
      sha256: sha256(onnxBytes),
    });

    const ready = await waitForPrepared(registry.admin, uploaded.id);
    expect(ready).toMatchObject({ status: 'READY', labels: ['NEGATIVE', 'POSITIVE'] });
    expect(ready.inputs.map((input) => input.name)).toEqual(['input_ids', 'attention_mask']);

    const model = await fetch(uploaded.artifact!.uri, {
      headers: { authorization: `Bearer ${registry.admin.token}` },
    });
    expect(model.status).toBe(200);
    expect(sha256(new Uint8Array(await model.arrayBuffer()))).toBe(uploaded.artifact!.sha256);
    // Basic auth with the token as password: what a ModelStore sends for http://user:token@host/ URIs.
    const basic = Buffer.from(`modelgate:${registry.admin.token}`).toString('base64');
    const bundle = await fetch(uploaded.tokenizer!.uri, { headers: { authorization: `Basic ${basic}` } });
    const entries = unpackBundle(new Uint8Array(await bundle.arrayBuffer()));
    expect(Object.keys(entries).sort()).toEqual([
      'config.json',
      'special_tokens_map.json',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    expect((await fetch(uploaded.artifact!.uri)).status).toBe(401);
    expect((await registry.admin.get(`/v1/artifacts/${'0'.repeat(64)}`)).status).toBe(404);
  });

  it('refuses an upload without model.onnx or with an unknown file, naming it', async () => {
    const form = new FormData();
    form.set('name', 'incomplete');
    form.set('task', 'raw');
    form.set('weights.bin', new Blob([randomBytes(16)]), 'weights.bin');
    const response = await fetch(`${registry.url}/v1/models/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${registry.admin.token}` },
      body: form,
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as ApiErrorBody).error.message).toContain(
      "unexpected file 'weights.bin'",
    );
  });

  it('fetches over http(s) from an allowlisted host', async () => {
    const body = await fixtureRegistration('tiny-bert-sst2', 'over-http', 'text-classification', files);
    const ready = await register({
      ...body,
      artifact: { ...(body.artifact as object), uri: `${serverUrl}/model.onnx` },
    });
    expect(ready.status).toBe('READY');
  });

  it('fails a redirect to a loopback address when fetching, naming the setting', async () => {
    const failed = await register({
      name: 'redirected',
      task: 'raw',
      artifact: { uri: `${serverUrl}/to-loopback`, sha256: 'a'.repeat(64) },
    });
    expect(failed.status).toBe('FAILED');
    expect(failed.statusReason).toMatch(
      /^artifact: refusing to fetch http:\/\/127\.0\.0\.1:9\/model\.onnx: .*loopback.*\(setting: REGISTRY_ARTIFACT_ALLOWED_HOSTS\)$/,
    );
  });

  it('fails a corrupt .onnx whose sha256 is right with onnxruntime’s reason', async () => {
    const garbage = randomBytes(4096);
    const path = join(files, 'garbage.onnx');
    await writeFile(path, garbage);
    const failed = await register({
      name: 'garbage',
      task: 'raw',
      artifact: { uri: pathToFileURL(path).href, sha256: sha256(garbage) },
    });
    expect(failed.status).toBe('FAILED');
    expect(failed.statusReason).toMatch(/^model\.onnx could not be opened by onnxruntime: .+/);
  });

  it('fails a sha256 mismatch saying which file, what was expected and what was found', async () => {
    const body = await fixtureRegistration('tiny-bert-sst2', 'mismatch', 'text-classification', files);
    const failed = await register({
      ...body,
      artifact: { ...(body.artifact as object), sha256: 'e'.repeat(64) },
    });
    expect(failed.status).toBe('FAILED');
    expect(failed.statusReason).toMatch(
      new RegExp(
        `^artifact: sha256 mismatch for file://.*/model\\.onnx: expected ${'e'.repeat(64)} got [0-9a-f]{64}`,
      ),
    );
  });

  it('fails an embedder registered as text-classification, naming what the task needs', async () => {
    const body = await fixtureRegistration(
      'tiny-bert-embedder',
      'embedder-as-classifier',
      'text-classification',
      files,
    );
    const failed = await register(body);
    expect(failed.status).toBe('FAILED');
    expect(failed.statusReason).toContain(
      'task text-classification needs a 2-D FP32 output named logits; the model has outputs last_hidden_state (FP32',
    );
  });

  it('fails a raw model whose rows are never padded when it is given a maxPaddingRatio, and prepares it without one', async () => {
    // tiny-vit takes FP32 pixel_values [batch, 3, H, W]: no attention_mask, nothing to pad.
    const body = await fixtureRegistration('tiny-vit', 'pixels-padded', 'raw', files);
    const { tokenizer: _none, ...raw } = body;
    const failed = await register({ ...raw, batching: { maxBatchSize: 8, maxPaddingRatio: 2 } });
    expect(failed.status).toBe('FAILED');
    expect(failed.statusReason).toMatch(
      /^batching\.maxPaddingRatio has no meaning for this model: only a model whose inputs are all INT64 \[batch, sequence\] with an attention_mask is padded \(rows of this one, pixel_values \(FP32 \[.*\]\), batch only with rows of the same shape\); leave it out$/,
    );
    const ready = await register({ ...raw, name: 'pixels' });
    expect(ready.status).toBe('READY');
  });

  it('retries an unreachable source with backoff, then fails saying so', async () => {
    const closedPort = await freePort();
    const failed = await register({
      name: 'unreachable',
      task: 'raw',
      artifact: { uri: `http://${ALLOWED_LOOPBACK}:${closedPort}/model.onnx`, sha256: 'a'.repeat(64) },
    });
    expect(failed.status).toBe('FAILED');
    expect(failed.statusReason).toMatch(
      /^artifact: fetching http:\/\/127\.0\.0\.2:\d+\/model\.onnx failed: .*ECONNREFUSED/,
    );
    const audit = await isolation.sql<{ action: string }>(
      "SELECT action FROM audit_log WHERE target = 'model:unreachable:1' ORDER BY id",
    );
    expect(audit.map((row) => row.action)).toEqual(['model.register', 'model.failed']);
  });

  it.each([
    [
      'a file:// URI escaping the roots with ..',
      () => `${pathToFileURL(files).href}/../../../../etc/passwd`,
      /has a "\.\." segment/,
    ],
    [
      'a file:// URI outside every root',
      () => 'file:///etc/passwd',
      /outside the allowed file roots .*REGISTRY_ARTIFACT_ROOTS/,
    ],
    [
      'a symlink out of a root',
      async () => {
        const link = join(files, 'escape.onnx');
        await symlink('/etc/hostname', link).catch(() => undefined);
        return pathToFileURL(link).href;
      },
      /outside the allowed file roots/,
    ],
    [
      'http://127.0.0.1',
      () => 'http://127.0.0.1:9/model.onnx',
      /resolves to 127\.0\.0\.1, a loopback .*allowlist it with REGISTRY_ARTIFACT_ALLOWED_HOSTS/,
    ],
    [
      'a host name resolving to loopback',
      () => 'http://localhost:9/model.onnx',
      /resolves to (127\.0\.0\.1|::1), a loopback/,
    ],
    [
      'the cloud metadata address',
      () => 'http://169.254.169.254/latest/meta-data',
      /cloud metadata endpoint/,
    ],
  ])('refuses %s with 400 at registration', async (_what, uri, reason) => {
    const response = await registry.admin.post<ApiErrorBody>('/v1/models', {
      name: 'refused',
      task: 'raw',
      artifact: { uri: await uri(), sha256: 'a'.repeat(64) },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.field).toBe('artifact.uri');
    expect(response.body.error.message).toMatch(reason);
  });
});

describe('model preparation without Redis (in-process runner)', () => {
  let isolation: Isolation;
  let registry: RunningRegistry & { app: NestFastifyApplication };

  beforeAll(async () => {
    isolation = await isolate();
    registry = await startRegistryInProcess(withoutRedis(isolation.env));
  });

  afterAll(async () => {
    await registry?.stop();
    await isolation?.dispose();
  });

  it('prepares models and announces revisions in-process', async () => {
    const bus = registry.app.get<InProcessConfigBus>(CONFIG_BUS);
    const heard: number[] = [];
    const unsubscribe = bus.subscribe((revision) => heard.push(revision));
    const body = await fixtureRegistration(
      'tiny-bert-sst2',
      'standalone',
      'text-classification',
      join(isolation.dir, 'files'),
    );
    expect((await registry.admin.post('/v1/models', body)).status).toBe(202);
    expect((await waitForPrepared(registry.admin, 'standalone:1')).status).toBe('READY');
    expect(heard).toEqual([1, 2]);
    unsubscribe();
  });
});
