import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureFixture } from '@modelgate/fixtures';
import {
  fp32Output,
  hubFilesFromDirectory,
  type HubServer,
  maxAbsDiff,
  type Message,
  type RunningWorker,
  startHubServer,
  startWorker,
  startWorkerWithSnapshot,
  tokenInferRequest,
  tokenRows,
  unbatchedOutputs,
  waitForPrepared,
  ADMIN_TOKEN,
  type RunningRegistry,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Isolation,
  isolate,
  startRegistryInProcess,
} from '../../registry/test/support/registry-harness.js';

/** Logits the worker answers for `rows`, one request per row. */
async function logitsOf(worker: RunningWorker, model: string, rows: number[][]): Promise<Float32Array[]> {
  return Promise.all(
    rows.map(
      async (row) =>
        fp32Output(await worker.client.call<Message>('ModelInfer', tokenInferRequest(model, [row])), 'logits')
          .data,
    ),
  );
}

describe('worker: a model whose weights are ONNX external data (model.onnx_data)', () => {
  let worker: RunningWorker;
  let inlinePath: string;

  beforeAll(async () => {
    inlinePath = join(await ensureFixture('tiny-bert-sst2'), 'onnx', 'model.onnx');
    worker = await startWorker([{ name: 'external', fixture: 'tiny-bert-sst2-external' }]);
  });

  afterAll(async () => {
    await worker?.stop();
  });

  it('places the data file beside the cached graph under its recorded name, loads it and answers as the inline model does', async () => {
    expect(await worker.client.call('ModelReady', { name: 'external' })).toEqual({ ready: true });
    const rows = tokenRows(6, 11);
    const expected = await unbatchedOutputs(inlinePath, rows, 'logits');
    const got = await logitsOf(worker, 'external', rows);
    got.forEach((logits, i) => expect(maxAbsDiff(logits, expected[i]!)).toBeLessThan(1e-5));
  });
});

describe('worker: an hf:// model with external data, from the registry that imported it', () => {
  let isolation: Isolation;
  let registry: RunningRegistry;
  let hub: HubServer;
  let worker: RunningWorker;

  beforeAll(async () => {
    isolation = await isolate();
    hub = await startHubServer({
      'acme/tiny-external': {
        files: await hubFilesFromDirectory(await ensureFixture('tiny-bert-sst2-external')),
      },
    });
    registry = await startRegistryInProcess({
      ...isolation.env,
      HF_ENDPOINT: hub.endpoint,
      REGISTRY_ARTIFACT_ALLOWED_HOSTS: '127.0.0.1',
    });
    const accepted = await registry.admin.registerModel({
      name: 'ext',
      task: 'text-classification',
      source: 'hf://acme/tiny-external',
    });
    const ready = await waitForPrepared(registry.admin, accepted.id);
    expect(ready.status, ready.statusReason ?? '').toBe('READY');
    await registry.admin.createEndpoint({ name: 'ext', task: 'text-classification', model: 'ext:1' });

    const dir = await mkdtemp(join(tmpdir(), 'worker-external-'));
    const unused = join(dir, 'unused-snapshot.json'); // not passed beside REGISTRY_URL
    await writeFile(unused, JSON.stringify({ revision: 0, models: [], endpoints: [] }));
    worker = await startWorkerWithSnapshot(unused, {
      REGISTRY_URL: registry.url,
      REGISTRY_TOKEN: ADMIN_TOKEN,
      WORKER_RECONCILE_INTERVAL_MS: '300',
      WORKER_ARTIFACT_ROOTS: '', // the files can only come from the registry's /v1/artifacts
    });
  });

  afterAll(async () => {
    await worker?.stop();
    await registry?.stop();
    await hub?.close();
    await isolation?.dispose();
  });

  it('fetches the graph and its data from the registry, never the Hub, and serves the model', async () => {
    const hubRequests = hub.requests.length;
    expect(await worker.client.call('ModelReady', { name: 'ext' })).toEqual({ ready: true });
    const rows = tokenRows(4, 5);
    const expected = await unbatchedOutputs(
      join(await ensureFixture('tiny-bert-sst2'), 'onnx', 'model.onnx'),
      rows,
      'logits',
    );
    const got = await logitsOf(worker, 'ext', rows);
    got.forEach((logits, i) => expect(maxAbsDiff(logits, expected[i]!)).toBeLessThan(1e-5));
    expect(hub.requests.length).toBe(hubRequests);
  });
});
