import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { waitFor, fixtureRegistration, waitForPrepared, type RunningRegistry } from '@modelgate/testing';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiErrorBody, type ModelView } from '@modelgate/contracts';
import { type Isolation, isolate, startRegistryInProcess } from './support/registry-harness.js';

describe('model preparation: off the event loop, and from s3://', () => {
  let isolation: Isolation;
  let registry: RunningRegistry;
  let s3: S3rver;
  let holdFile: string;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

  beforeAll(async () => {
    isolation = await isolate();
    holdFile = join(isolation.dir, 'release-preparation');
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(isolation.dir, 's3') });
    const { port } = await s3.run();
    const endpointUrl = `http://127.0.0.1:${port}`;
    // The registry runs in this process: its AWS SDK reads the standard chain from here.
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    const client = new S3Client({ endpoint: endpointUrl, forcePathStyle: true, region: 'us-east-1' });
    await client.send(new CreateBucketCommand({ Bucket: 'models' }));
    const body = await fixtureRegistration(
      'tiny-bert-sst2',
      'unused',
      'text-classification',
      join(isolation.dir, 'files'),
    );
    const onnxPath = new URL((body.artifact as { uri: string }).uri);
    await client.send(
      new PutObjectCommand({ Bucket: 'models', Key: 'bert/model.onnx', Body: await readFile(onnxPath) }),
    );
    client.destroy();
    registry = await startRegistryInProcess({
      ...isolation.env,
      S3_ENDPOINT_URL: endpointUrl,
      REGISTRY_TEST_HOLD_PREPARATION_FILE: holdFile,
    });
  });

  afterAll(async () => {
    await writeFile(holdFile, '').catch(() => undefined); // let a held thread finish
    await registry?.stop();
    await s3?.close();
    await isolation?.dispose();
    for (const [key, value] of [
      ['AWS_ACCESS_KEY_ID', saved.id],
      ['AWS_SECRET_ACCESS_KEY', saved.secret],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('answers admin calls while a preparation blocks its thread in onnxruntime, then prepares an s3:// model READY', async () => {
    const body = await fixtureRegistration(
      'tiny-bert-sst2',
      'from-s3',
      'text-classification',
      join(isolation.dir, 'files'),
    );
    const accepted = await registry.admin.post<ModelView>('/v1/models', {
      ...body,
      artifact: { ...(body.artifact as object), uri: 's3://models/bert/model.onnx' },
    });
    expect(accepted.status).toBe(202);
    // Wait until the preparation thread is blocked (held) where onnxruntime opens the session.
    await waitFor(
      () =>
        access(`${holdFile}.held`).then(
          () => true,
          () => false,
        ),
      { timeoutMs: 30_000 },
    );
    // The event loop is not blocked: the admin API answers, with the model still PREPARING.
    const seen = await registry.admin.get<ModelView>('/v1/models/from-s3/1');
    expect(seen.body.status).toBe('PREPARING');
    const list = await registry.admin.get<unknown>('/v1/models');
    expect(list.status).toBe(200);

    await writeFile(holdFile, ''); // release the held thread
    const ready = await waitForPrepared(registry.admin, accepted.body.id);
    expect(ready.status, ready.statusReason ?? '').toBe('READY');
    expect(ready.artifact?.uri).toBe('s3://models/bert/model.onnx');
    expect(ready.inputs.map((input) => input.name)).toContain('input_ids');
  });

  it('refuses an s3:// URI without a key at registration', async () => {
    const response = await registry.admin.post<ApiErrorBody>('/v1/models', {
      name: 'no-key',
      task: 'raw',
      artifact: { uri: 's3://models', sha256: 'a'.repeat(64) },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toMatch(/artifact\.uri: .*s3:\/\/<bucket>\/<key>/);
    // A version the fetch would not pin is refused, not dropped.
    const versioned = await registry.admin.post<ApiErrorBody>('/v1/models', {
      name: 'versioned',
      task: 'raw',
      artifact: { uri: 's3://models/bert/model.onnx?versionId=3', sha256: 'a'.repeat(64) },
    });
    expect(versioned.status).toBe(400);
    expect(versioned.body.error.message).toContain('has a query, which s3:// URIs may not');
  });
});
