import { mkdtemp } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type RunningGateway,
  type RunningWorker,
  freePort,
  metricValue,
  startGateway,
  startWorkerWithSnapshot,
  tokenInferRequest,
  tokenRows,
  waitFor,
  writeSnapshot,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HOLD = 'x-modelgate-test-hold-ms';

describe('gateway: the serve routes over HTTP, against a real worker process', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-routes-test-'));
    const port = await freePort();
    const snapshot = await writeSnapshot(
      dir,
      [{ name: 'small', fixture: 'tiny-bert-sst2', batching: { maxBatchSize: 1, maxQueueSize: 4 } }],
      {
        workerGroups: [{ name: 'default', addresses: [`127.0.0.1:${port}`] }],
        endpoints: [
          {
            name: 'small',
            task: 'text-classification',
            routes: [{ model: 'small:1', weight: 100, role: 'primary' }],
          },
        ],
      },
    );
    worker = await startWorkerWithSnapshot(snapshot, { WORKER_GRPC_PORT: String(port) });
    gateway = await startGateway(snapshot);
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
  });

  const scrape = async () => (await fetch(`${gateway.url}/metrics`)).text();
  const cancelled = (metrics: string) =>
    metricValue(metrics, 'modelgate_requests_total', {
      endpoint: 'small',
      model: 'none',
      route: 'none',
      code: '499',
    });

  it('cancels the worker call as soon as the client closes its connection, and counts it as 499', async () => {
    const before = cancelled(await scrape());
    // Keep the worker's only batch slot busy for 4 s, so the gateway's call waits in its queue.
    const held = worker.client.call('ModelInfer', tokenInferRequest('small', tokenRows(1, 3, 6, 6)), {
      metadata: { [HOLD]: '4000' },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const body = JSON.stringify({ text: 'never mind' });
    const request = http.request(`${gateway.url}/serve/small`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    request.on('error', () => undefined); // the client itself hangs up
    request.end(body);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const gone = performance.now();
    request.destroy();
    // Without cancellation the call would wait for the held batch and end as a 200 after ~3.4 s.
    await waitFor(async () => cancelled(await scrape()) > before, { timeoutMs: 1500 });
    expect(performance.now() - gone).toBeLessThan(1500);
    await held;
  });

  it('counts answered requests by endpoint, model, route and code, with their duration and stages', async () => {
    expect((await gateway.post('/serve/small', { text: 'fine' })).status).toBe(200);
    const metrics = await scrape();
    const labels = { endpoint: 'small', model: 'small:1', route: 'primary', code: '200' };
    expect(metricValue(metrics, 'modelgate_requests_total', labels)).toBeGreaterThanOrEqual(1);
    expect(
      metricValue(metrics, 'modelgate_request_duration_seconds_count', {
        endpoint: 'small',
        route: 'primary',
      }),
    ).toBeGreaterThanOrEqual(1);
    for (const stage of ['tokenize', 'queue', 'infer', 'post']) {
      expect(
        metricValue(metrics, 'modelgate_stage_duration_seconds_count', { stage }),
      ).toBeGreaterThanOrEqual(1);
    }
  });

  it('documents both serve routes, with the request body schema, in the OpenAPI document', async () => {
    const document = (await (await fetch(`${gateway.url}/docs-json`)).json()) as {
      paths: Record<string, { post?: { parameters?: { name: string }[]; requestBody?: unknown } }>;
    };
    const plain = document.paths['/serve/{endpoint}']?.post;
    const pinned = document.paths['/serve/{endpoint}/{version}']?.post;
    expect(plain?.parameters?.map((p) => p.name)).toContain('endpoint');
    expect(pinned?.parameters?.map((p) => p.name)).toEqual(expect.arrayContaining(['endpoint', 'version']));
    expect(JSON.stringify(plain?.requestBody)).toContain('"text"');
  });
});
