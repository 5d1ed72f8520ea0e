import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureFixture } from '@modelgate/fixtures';
import {
  hubFilesFromDirectory,
  type HubServer,
  startHubServer,
  fixtureRegistration,
  sha256,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ModelView } from '@modelgate/contracts';
import { type CliRegistry, startCliRegistry } from './support/cli-registry.js';

describe('modelgate model add: hf:// sources and ONNX external data', () => {
  let cli: CliRegistry;
  let hub: HubServer;
  let externalDir: string;

  const modelgate = (...args: string[]) => cli.modelgate(...args);

  beforeAll(async () => {
    externalDir = await ensureFixture('tiny-bert-sst2-external');
    hub = await startHubServer({ 'acme/tiny-external': { files: await hubFilesFromDirectory(externalDir) } });
    cli = await startCliRegistry({ HF_ENDPOINT: hub.endpoint, REGISTRY_ARTIFACT_ALLOWED_HOSTS: '127.0.0.1' });
  });

  afterAll(async () => {
    await cli?.stop();
    await hub?.close();
  });

  it('registers --uri hf://org/name@revision without digests, waits for READY and shows the source', async () => {
    const run = await modelgate(
      'model',
      'add',
      'hub',
      '--uri',
      'hf://acme/tiny-external@main',
      '--task',
      'text-classification',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^status: +READY$/m);
    expect(run.stdout).toMatch(/^source: +hf:\/\/acme\/tiny-external@main$/m);
    expect(run.stdout).toMatch(
      /^external data: +model\.onnx_data: http:\/\/127\.0\.0\.1:\d+\/v1\/artifacts\//m,
    );
  });

  it('uploads model.onnx_data found beside model.onnx with --path', async () => {
    const run = await modelgate(
      'model',
      'add',
      'uploaded',
      '--path',
      externalDir,
      '--task',
      'text-classification',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('uploading model.onnx, model.onnx_data, tokenizer.json');
    const stored = (await cli.registry.admin.get<ModelView>('/v1/models/uploaded/1')).body;
    expect(stored.status).toBe('READY');
    expect(stored.externalData.map((file) => file.name)).toEqual(['model.onnx_data']);
  });

  it('registers external data by URI with --external-data-uri and --external-data-sha256', async () => {
    const body = await fixtureRegistration(
      'tiny-bert-sst2-external',
      'by-uri',
      'text-classification',
      join(cli.isolation.dir, 'files'),
    );
    const artifact = body.artifact as { uri: string; sha256: string };
    const tokenizer = body.tokenizer as { uri: string; sha256: string };
    const data = join(externalDir, 'onnx', 'model.onnx_data');
    const run = await modelgate(
      'model',
      'add',
      'by-uri',
      '--task',
      'text-classification',
      '--uri',
      artifact.uri,
      '--sha256',
      artifact.sha256,
      '--tokenizer-uri',
      tokenizer.uri,
      '--tokenizer-sha256',
      tokenizer.sha256,
      '--external-data-uri',
      pathToFileURL(data).href,
      '--external-data-sha256',
      sha256(await readFile(data)),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^status: +READY$/m);
  });

  it('refuses digests given with an hf:// URI before calling the registry', async () => {
    const run = await modelgate(
      'model',
      'add',
      'mixed',
      '--uri',
      'hf://acme/tiny-external',
      '--sha256',
      'a'.repeat(64),
      '--task',
      'raw',
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('leave out --sha256');
    expect((await cli.registry.admin.get('/v1/models/mixed/1')).status).toBe(404);
  });
});
