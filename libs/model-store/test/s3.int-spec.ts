import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@modelgate/contracts';
import { ModelStore } from '@modelgate/model-store';

const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const MODEL = Buffer.from(Array.from({ length: 90_000 }, (_, i) => (i * 17) % 256));
const MODEL_SHA = sha256Of(MODEL);

describe('ModelStore: s3:// artifacts from an S3-protocol server (s3rver)', () => {
  let server: S3rver;
  let endpointUrl: string;
  let work: string;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'model-store-s3-'));
    server = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: join(work, 's3'),
      configureBuckets: [{ name: 'models' }],
    });
    const { port } = await server.run();
    endpointUrl = `http://127.0.0.1:${port}`;
    // The AWS SDK's standard chain reads these; s3rver accepts its own well-known pair.
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    const client = new S3Client({ endpoint: endpointUrl, forcePathStyle: true, region: 'us-east-1' });
    await client.send(new PutObjectCommand({ Bucket: 'models', Key: 'sst2/v1/model.onnx', Body: MODEL }));
    client.destroy();
  });

  afterAll(async () => {
    await server?.close();
    rmSync(work, { recursive: true, force: true });
    process.env.AWS_ACCESS_KEY_ID = saved.id;
    process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
  });

  const store = (maxBytes?: number) =>
    new ModelStore({
      cacheDir: mkdtempSync(join(work, 'cache-')),
      fileRoots: [],
      s3: { endpointUrl },
      ...(maxBytes === undefined ? {} : { maxBytes }),
    });

  it('fetches and verifies an object, then serves it from the cache', async () => {
    const models = store();
    const first = await models.fetchArtifact({ uri: 's3://models/sst2/v1/model.onnx', sha256: MODEL_SHA });
    expect(first).toMatchObject({ sha256: MODEL_SHA, bytes: MODEL.length, cached: false });
    expect(readFileSync(first.path).equals(MODEL)).toBe(true);
    const again = await models.fetchArtifact({ uri: 's3://models/sst2/v1/model.onnx', sha256: MODEL_SHA });
    expect(again.cached).toBe(true);
  });

  it.each([
    ['a missing key', 's3://models/sst2/v9/model.onnx', MODEL_SHA, ErrorCode.NOT_FOUND, /no such object/],
    ['a missing bucket', 's3://nobucket/model.onnx', MODEL_SHA, ErrorCode.NOT_FOUND, /no such object/],
    [
      'the wrong digest',
      's3://models/sst2/v1/model.onnx',
      'ab'.repeat(32),
      ErrorCode.INVALID_ARGUMENT,
      /sha256 mismatch/,
    ],
    ['a URI without a key', 's3://models', MODEL_SHA, ErrorCode.INVALID_ARGUMENT, /s3:\/\/<bucket>\/<key>/],
    [
      'a malformed escape',
      's3://models/a%zz',
      MODEL_SHA,
      ErrorCode.INVALID_ARGUMENT,
      /s3:\/\/<bucket>\/<key>/,
    ],
  ])('refuses %s with a clear error', async (_what, uri, sha256, code, message) => {
    await expect(store().fetchArtifact({ uri, sha256 })).rejects.toMatchObject({
      code,
      message: expect.stringMatching(message) as string,
    });
  });

  it('refuses an object over the size limit before reading it', async () => {
    await expect(
      store(1000).fetchArtifact({ uri: 's3://models/sst2/v1/model.onnx', sha256: MODEL_SHA }),
    ).rejects.toMatchObject({ code: ErrorCode.PAYLOAD_TOO_LARGE });
  });
});
