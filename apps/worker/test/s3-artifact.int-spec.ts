import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { type RunningWorker, startWorkerWithSnapshot, writeSnapshot } from '@modelgate/testing';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const S3_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

describe('worker: a model whose artifact is an s3:// object on an S3-compatible store', () => {
  let server: S3rver;
  let worker: RunningWorker;

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'worker-s3-'));
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(dir, 's3') });
    const { port } = await server.run();
    const endpointUrl = `http://127.0.0.1:${port}`;
    const snapshotPath = await writeSnapshot(dir, [{ name: 'bert', fixture: 'tiny-bert-sst2' }]);
    const snapshot = JSON.parse(await readFile(snapshotPath, 'utf8')) as {
      models: { artifact: { uri: string; sha256: string } }[];
    };
    const model = snapshot.models[0]!;
    const client = new S3Client({
      endpoint: endpointUrl,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    await client.send(new CreateBucketCommand({ Bucket: 'models' }));
    const bytes = await readFile(model.artifact.uri.replace('file://', ''));
    await client.send(new PutObjectCommand({ Bucket: 'models', Key: 'bert/1/model.onnx', Body: bytes }));
    client.destroy();
    model.artifact.uri = 's3://models/bert/1/model.onnx';
    await writeFile(snapshotPath, JSON.stringify(snapshot));
    worker = await startWorkerWithSnapshot(snapshotPath, {
      S3_ENDPOINT_URL: endpointUrl,
      WORKER_ARTIFACT_ROOTS: '', // nothing from the file system: the model can only come from S3
      ...S3_CREDENTIALS,
    });
  });

  afterAll(async () => {
    await worker?.stop();
    await server?.close();
  });

  it('fetches it through the AWS SDK with credentials from the standard chain, and serves it', async () => {
    expect(await worker.client.call('ModelReady', { name: 'bert' })).toEqual({ ready: true });
  });
});
