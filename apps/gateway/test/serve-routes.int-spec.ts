import http from 'node:http';
import net from 'node:net';
import {
  type RunningGateway,
  type RunningWorker,
  batchesStarted,
  metricValue,
  tokenInferRequest,
  tokenRows,
  waitFor,
  startServingPair,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HOLD = 'x-modelgate-test-hold-ms';

describe('gateway: the serve routes over HTTP, against a real worker process', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;

  beforeAll(async () => {
    ({ worker, gateway } = await startServingPair(
      [{ name: 'small', fixture: 'tiny-bert-sst2', batching: { maxBatchSize: 1, maxQueueSize: 4 } }],
      {
        endpoints: [
          {
            name: 'small',
            task: 'text-classification',
            routes: [{ model: 'small:1', weight: 100, role: 'primary' }],
          },
        ],
      },
    ));
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
  });

  const scrape = async () => (await fetch(`${gateway.url}/metrics`)).text();
  /** The labels of a request routed to the endpoint's only model. */
  const routed = { serving_endpoint: 'small', model: 'small', version: '1' };
  const cancelled = (metrics: string) =>
    metricValue(metrics, 'modelgate_requests_total', { ...routed, route: 'primary', code: '499' });

  it('cancels the worker call as soon as the client closes its connection, and counts it as 499', async () => {
    const before = cancelled(await scrape());
    const queued = async () =>
      metricValue(await worker.metrics(), 'modelgate_queue_depth', { model: 'small', version: '1' });
    const workerCancelled = async () =>
      metricValue(await worker.metrics(), 'modelgate_inference_requests_total', {
        model: 'small',
        version: '1',
        status: 'cancelled',
      });
    const workerCancelledBefore = await workerCancelled();
    // Keep the worker's only batch slot busy for 4 s, so the gateway's call waits in its queue.
    const started = await batchesStarted(worker, 'small');
    let heldAnswered = false;
    const held = worker.client
      .call('ModelInfer', tokenInferRequest('small', tokenRows(1, 3, 6, 6)), {
        metadata: { [HOLD]: '4000' },
      })
      .then(() => (heldAnswered = true));
    await waitFor(async () => (await batchesStarted(worker, 'small')) > started);
    const body = JSON.stringify({ text: 'never mind' });
    const request = http.request(`${gateway.url}/serve/small`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    request.on('error', () => undefined); // the client itself hangs up
    request.end(body);
    await waitFor(async () => (await queued()) === 1); // the gateway's call waits behind the held batch
    request.destroy();
    // Without cancellation the call would wait for the held batch and end as a 200 once it ends.
    await waitFor(async () => cancelled(await scrape()) > before);
    expect(heldAnswered).toBe(false);
    // The worker heard the cancel too, and dropped the call from its queue.
    await waitFor(async () => (await workerCancelled()) > workerCancelledBefore);
    expect(await queued()).toBe(0);
    expect(heldAnswered).toBe(false);
    await held;
  });

  it('counts a request refused by the worker (queue full) under the model, version and route it was routed to', async () => {
    const rejected = (metrics: string) => ({
      requests: metricValue(metrics, 'modelgate_requests_total', {
        ...routed,
        route: 'primary',
        code: '429',
      }),
      failures: metricValue(metrics, 'modelgate_request_failures_total', { ...routed, reason: 'REJECTED' }),
    });
    const before = rejected(await scrape());
    const dispatchedBefore = await batchesStarted(worker, 'small');
    // The worker's only batch slot held, then its queue (maxQueueSize 4) filled behind it: of five
    // calls the worker takes four and refuses the fifth at once.
    const request = () => tokenInferRequest('small', tokenRows(1, 3, 6, 6));
    const held = worker.client.call('ModelInfer', request(), { metadata: { [HOLD]: '4000' } });
    await waitFor(async () => (await batchesStarted(worker, 'small')) > dispatchedBefore);
    const behind = Array.from({ length: 5 }, () =>
      worker.client.call('ModelInfer', request()).then(
        () => 'served',
        () => 'refused',
      ),
    );
    expect(await Promise.race(behind)).toBe('refused');
    const answer = await gateway.post('/serve/small', { text: 'one too many' });
    expect(answer.status).toBe(429);
    const after = rejected(await scrape());
    expect(after.requests - before.requests).toBe(1);
    expect(after.failures - before.failures).toBe(1);
    expect((await Promise.all(behind)).sort()).toEqual(['refused', 'served', 'served', 'served', 'served']);
    await held;
  });

  it('counts a request with an invalid body, refused before it went to a model, under model "none"', async () => {
    const invalid = async () =>
      metricValue(await scrape(), 'modelgate_request_failures_total', {
        serving_endpoint: 'small',
        model: 'none',
        version: 'none',
        reason: 'INVALID_INPUT',
      });
    const before = await invalid();
    expect((await gateway.post('/serve/small', { txt: 'typo' })).status).toBe(400);
    expect((await invalid()) - before).toBe(1);
  });

  it('counts answered requests by endpoint, model, route and code, with their duration and stages', async () => {
    expect((await gateway.post('/serve/small', { text: 'fine' })).status).toBe(200);
    const metrics = await scrape();
    const labels = { serving_endpoint: 'small', model: 'small', version: '1', route: 'primary', code: '200' };
    expect(metricValue(metrics, 'modelgate_requests_total', labels)).toBeGreaterThanOrEqual(1);
    expect(
      metricValue(metrics, 'modelgate_request_duration_seconds_count', {
        serving_endpoint: 'small',
        route: 'primary',
      }),
    ).toBeGreaterThanOrEqual(1);
    for (const stage of ['tokenize', 'queue', 'infer', 'post']) {
      expect(
        metricValue(metrics, 'modelgate_stage_duration_seconds_count', { stage }),
      ).toBeGreaterThanOrEqual(1);
    }
  });

  it("reads bodies as UTF-8 on every surface, and answers what Fastify or Node refuse in the surface's error shape", async () => {
    const send = (path: string, body: Buffer, type = 'application/json') =>
      fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body });
    const notUtf8 = Buffer.from('{"input":"caf\xe9","model":"small"}', 'latin1');
    const openAi = await send('/v1/embeddings', notUtf8);
    expect(openAi.status).toBe(400);
    expect(((await openAi.json()) as { error: { message: string } }).error.message).toBe(
      'the body is not valid UTF-8',
    );
    const latin1 = await send('/v2/models/small/infer', notUtf8, 'application/json; charset=latin1');
    expect(latin1.status).toBe(415);
    expect(await latin1.json()).toEqual({ error: 'charset latin1 is not supported: send the body in UTF-8' });
    // A malformed percent-encoding: Fastify's own body before, without a request id.
    const badUrl = await fetch(`${gateway.url}/v2/models/sm%al`);
    expect(badUrl.status).toBe(400);
    expect(badUrl.headers.get('x-request-id')).toMatch(/\S/);
    expect(Object.keys((await badUrl.json()) as object)).toEqual(['error']);
    // Bytes that are not HTTP, and headers over Node's limit: Node's "Client Error" before.
    const rawAnswer = (request: string) =>
      new Promise<{ statusLine: string; body: unknown }>((resolve, reject) => {
        const socket = net.connect(Number(new URL(gateway.url).port), '127.0.0.1', () =>
          socket.write(request),
        );
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        socket.on('end', () =>
          resolve({
            statusLine: text.slice(0, text.indexOf('\r\n')),
            body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as unknown,
          }),
        );
        socket.on('error', reject);
      });
    const notHttp = await rawAnswer('POST /serve/small HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
    expect(notHttp.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(notHttp.body).toMatchObject({
      error: {
        code: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/^the request is not valid HTTP/) as string,
      },
    });
    const bigHeaders = await rawAnswer(
      `GET /health/live HTTP/1.1\r\nHost: x\r\nCookie: ${'c'.repeat(20_000)}\r\n\r\n`,
    );
    expect(bigHeaders.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(bigHeaders.body).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('documents both serve routes, with the request body schema, in the OpenAPI document', async () => {
    const document = (await (await fetch(`${gateway.url}/docs/json`)).json()) as {
      paths: Record<string, { post?: { parameters?: { name: string }[]; requestBody?: unknown } }>;
    };
    const plain = document.paths['/serve/{endpoint}']?.post;
    const pinned = document.paths['/serve/{endpoint}/{version}']?.post;
    expect(plain?.parameters?.map((p) => p.name)).toContain('endpoint');
    expect(pinned?.parameters?.map((p) => p.name)).toEqual(expect.arrayContaining(['endpoint', 'version']));
    expect(JSON.stringify(plain?.requestBody)).toContain('"text"');
  });
});
