import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, parseHfUri } from '@modelgate/contracts';
import { type DigestedFile, HfHub, ModelStore } from '@modelgate/model-store';
import { type HubServer, startHubServer } from '@modelgate/testing';

const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const MODEL = Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 7) % 251));
const WEIGHTS = Buffer.from(Array.from({ length: 120_000 }, (_, i) => (i * 13) % 241));
const CONFIG = Buffer.from('{"model_type":"bert"}');
const TOKEN = 'hf_test_token_0123456789';

/** The code and message a promise rejects with. */
async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    return { code, message };
  }
  return expect.fail('expected a rejection');
}

/** Reads a stream into memory with its digest, as a sink must. */
async function collect(stream: Readable): Promise<DigestedFile & { data: Buffer }> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const data = Buffer.concat(chunks);
  return { data, sha256: sha256Of(data), bytes: data.length };
}

describe('HfHub against a local server laid out like the Hub', () => {
  let hub: HubServer;
  const client = (options: { token?: string; allowedHosts?: string[] } = {}) =>
    new HfHub({ endpoint: hub.endpoint, allowedHosts: ['127.0.0.1'], ...options });
  const files = { 'onnx/model.onnx': MODEL, 'onnx/model.onnx_data': WEIGHTS, 'config.json': CONFIG };

  beforeAll(async () => {
    hub = await startHubServer(
      {
        'acme/tiny': { files, refs: ['v1'] },
        'acme/gated': { files, gated: true },
      },
      { token: TOKEN },
    );
  });

  afterAll(async () => {
    await hub?.close();
  });

  it('streams a small file from its resolve URL and reports the commit the revision resolved to', async () => {
    const got = await client().download(parseHfUri('hf://acme/tiny@v1'), 'config.json', collect, {
      maxBytes: 1000,
    });
    expect(got?.stored.data.equals(CONFIG)).toBe(true);
    expect(got?.commit).toBe(hub.commitOf('acme/tiny'));
    expect(hub.requests.at(-1)).toMatchObject({ server: 'hub', path: '/acme/tiny/resolve/v1/config.json' });
  });

  it('follows the LFS redirect to the CDN, sending the token to the Hub only, and checks the announced sha256', async () => {
    const before = hub.requests.length;
    const got = await client({ token: TOKEN }).download(
      parseHfUri('hf://acme/tiny'),
      'onnx/model.onnx',
      collect,
      {
        maxBytes: 1_000_000,
      },
    );
    expect(got?.stored.sha256).toBe(sha256Of(MODEL));
    const seen = hub.requests.slice(before);
    expect(seen).toEqual([
      { server: 'hub', path: '/acme/tiny/resolve/main/onnx/model.onnx', authorization: `Bearer ${TOKEN}` },
      { server: 'cdn', path: `/blobs/${sha256Of(MODEL)}`, authorization: undefined },
    ]);
  });

  it('refuses a transfer whose digest differs from the one the Hub announced', async () => {
    const corrupt = async (stream: Readable) => ({ ...(await collect(stream)), sha256: 'f'.repeat(64) });
    const refused = await failure(
      client().download(parseHfUri('hf://acme/tiny'), 'onnx/model.onnx_data', corrupt, {
        maxBytes: 1_000_000,
      }),
    );
    expect(refused.code).toBe(ErrorCode.UNAVAILABLE);
    expect(refused.message).toMatch(/onnx\/model\.onnx_data arrived with sha256 f+, but the Hub announced/);
  });

  it('answers undefined for an optional file the repository lacks, NOT_FOUND naming it when required', async () => {
    const ref = parseHfUri('hf://acme/tiny');
    await expect(
      client().download(ref, 'vocab.txt', collect, { maxBytes: 1000, optional: true }),
    ).resolves.toBe(undefined);
    await expect(client().download(ref, 'tokenizer.json', collect, { maxBytes: 1000 })).rejects.toMatchObject(
      {
        code: ErrorCode.NOT_FOUND,
        message:
          'hf://acme/tiny@main: the repository has no tokenizer.json (HTTP 404 from ' + hub.endpoint + ')',
      },
    );
  });

  it('says which part is missing: the repository, or the revision', async () => {
    const noRepo = await failure(
      client().download(parseHfUri('hf://acme/nope'), 'config.json', collect, {
        maxBytes: 1000,
        optional: true,
      }),
    );
    expect(noRepo.code).toBe(ErrorCode.NOT_FOUND);
    expect(noRepo.message).toContain('repository acme/nope was not found at');
    const noRevision = await failure(
      client().download(parseHfUri('hf://acme/tiny@v2'), 'config.json', collect, { maxBytes: 1000 }),
    );
    expect(noRevision.code).toBe(ErrorCode.NOT_FOUND);
    expect(noRevision.message).toContain('revision "v2" of acme/tiny was not found');
  });

  it('refuses a gated repository without the token, naming HF_TOKEN, and reads it with the token', async () => {
    const ref = parseHfUri('hf://acme/gated');
    const refused = await failure(client().download(ref, 'config.json', collect, { maxBytes: 1000 }));
    expect(refused.code).toBe(ErrorCode.PERMISSION_DENIED);
    expect(refused.message).toContain(
      'acme/gated is gated; accept its conditions on the Hub with an account, then set HF_TOKEN',
    );
    const got = await client({ token: TOKEN }).download(ref, 'config.json', collect, { maxBytes: 1000 });
    expect(got?.stored.data.equals(CONFIG)).toBe(true);
  });

  it('applies the SSRF guard to the endpoint: a loopback Hub needs allowlisting', async () => {
    const refused = await failure(
      client({ allowedHosts: [] }).download(parseHfUri('hf://acme/tiny'), 'config.json', collect, {
        maxBytes: 1000,
      }),
    );
    expect(refused.code).toBe(ErrorCode.PERMISSION_DENIED);
    expect(refused.message).toMatch(/^hf:\/\/acme\/tiny@main: config\.json: refusing to fetch .*loopback/);
  });

  it('refuses a file over the size limit by its Content-Length', async () => {
    await expect(
      client().download(parseHfUri('hf://acme/tiny'), 'onnx/model.onnx_data', collect, { maxBytes: 1000 }),
    ).rejects.toMatchObject({ code: ErrorCode.PAYLOAD_TOO_LARGE });
  });
});

describe('ModelStore.fetchModel: a model and its ONNX external data', () => {
  let work: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'model-store-external-'));
    for (const [name, data] of [
      ['export/model.onnx', MODEL],
      ['export/model.onnx_data', WEIGHTS],
    ] as const) {
      mkdirSync(dirname(join(work, name)), { recursive: true });
      writeFileSync(join(work, name), data);
    }
  });

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  const store = () => new ModelStore({ cacheDir: join(work, 'cache'), fileRoots: [join(work, 'export')] });
  const ref = (name: string, data: Buffer) => ({
    uri: pathToFileURL(join(work, 'export', name)).href,
    sha256: sha256Of(data),
  });

  it('returns the cached file itself when the model has no external data', async () => {
    const fetched = await store().fetchModel({ artifact: ref('model.onnx', MODEL) });
    expect(fetched.path).toBe(join(work, 'cache', 'sha256', sha256Of(MODEL)));
  });

  it('places each external data file beside model.onnx under the name the graph records, verified', async () => {
    const files = {
      artifact: ref('model.onnx', MODEL),
      externalData: [{ name: 'weights.bin', ...ref('model.onnx_data', WEIGHTS) }],
    };
    const first = await store().fetchModel(files);
    expect(first.path).toMatch(/\/cache\/models\/[0-9a-f]{64}\/model\.onnx$/);
    expect(readFileSync(first.path).equals(MODEL)).toBe(true);
    expect(readFileSync(join(dirname(first.path), 'weights.bin')).equals(WEIGHTS)).toBe(true);
    expect(lstatSync(join(dirname(first.path), 'weights.bin')).nlink).toBe(2); // a hard link, no copy

    const again = await store().fetchModel(files);
    expect(again).toEqual({ path: first.path, cached: true });
    // Another name for the same bytes is another directory: the graph reads files by name.
    const renamed = await store().fetchModel({
      ...files,
      externalData: [{ ...files.externalData[0]!, name: 'model.onnx_data' }],
    });
    expect(dirname(renamed.path)).not.toBe(dirname(first.path));
    const tmp = join(work, 'cache', 'tmp');
    expect(existsSync(tmp) ? readdirSync(tmp) : []).toEqual([]); // no half-made directories left
  });

  it('places an image-to-text encoder beside its decoder as encoder_model.onnx, verified', async () => {
    const files = { artifact: ref('model.onnx', MODEL), encoder: ref('model.onnx_data', WEIGHTS) };
    const first = await store().fetchModel(files);
    expect(first.path).toMatch(/\/cache\/models\/[0-9a-f]{64}\/model\.onnx$/);
    expect(first.encoderPath).toBe(join(dirname(first.path), 'encoder_model.onnx'));
    expect(readFileSync(first.path).equals(MODEL)).toBe(true);
    expect(readFileSync(first.encoderPath!).equals(WEIGHTS)).toBe(true);
    expect(await store().fetchModel(files)).toEqual({ ...first, cached: true });

    const withData = await store().fetchModel({
      ...files,
      externalData: [{ name: 'model.onnx_data', ...ref('model.onnx_data', WEIGHTS) }],
    });
    expect(withData.encoderPath).toBe(join(dirname(withData.path), 'encoder_model.onnx'));
    expect(existsSync(join(dirname(withData.path), 'model.onnx_data'))).toBe(true);
  });

  it('refuses an encoder whose bytes do not match its sha256, and external data named like the encoder', async () => {
    const mismatch = await failure(
      store().fetchModel({
        artifact: ref('model.onnx', MODEL),
        encoder: { uri: ref('model.onnx_data', WEIGHTS).uri, sha256: 'b'.repeat(64) },
      }),
    );
    expect(mismatch.code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(mismatch.message).toContain('sha256 mismatch');
    const clash = await failure(
      store().fetchModel({
        artifact: ref('model.onnx', MODEL),
        encoder: ref('model.onnx_data', WEIGHTS),
        externalData: [{ name: 'encoder_model.onnx', ...ref('model.onnx_data', WEIGHTS) }],
      }),
    );
    expect(clash.code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(clash.message).toContain('other than model.onnx and encoder_model.onnx');
  });

  it('refuses external data whose bytes do not match their sha256', async () => {
    const refused = await failure(
      store().fetchModel({
        artifact: ref('model.onnx', MODEL),
        externalData: [
          { name: 'model.onnx_data', uri: ref('model.onnx_data', WEIGHTS).uri, sha256: 'a'.repeat(64) },
        ],
      }),
    );
    expect(refused.code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(refused.message).toContain('sha256 mismatch');
  });
});
