import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODELGATE_VERSION } from '@modelgate/contracts';
import {
  type RunningGateway,
  type RunningWorker,
  freePort,
  startGateway,
  startWorkerWithSnapshot,
  writeSnapshot,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** One call: status and parsed JSON body. */
async function call(url: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

const TOKEN_INPUT = { datatype: 'INT64', shape: [-1, -1] };

describe('gateway: KServe v2 REST (health, metadata, model ready, infer) against a real worker', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;
  const get = (path: string) => call(`${gateway.url}${path}`);
  const post = (path: string, body: unknown, contentType = 'application/json') =>
    call(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-v2-'));
    const port = await freePort();
    const snapshot = await writeSnapshot(
      dir,
      [
        { name: 'tensors', fixture: 'tiny-bert-sst2', task: 'raw' },
        { name: 'orphan', fixture: 'tiny-bert-sst2', task: 'raw', workerGroup: 'nowhere' },
      ],
      { workerGroups: [{ name: 'default', addresses: [`127.0.0.1:${port}`] }] },
    );
    worker = await startWorkerWithSnapshot(snapshot, { WORKER_GRPC_PORT: String(port) });
    gateway = await startGateway(snapshot);
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
  });

  it('answers server metadata, live and ready', async () => {
    expect(await get('/v2')).toEqual({
      status: 200,
      body: { name: 'modelgate', version: MODELGATE_VERSION, extensions: ['generate'] },
    });
    expect(await get('/v2/health/live')).toEqual({ status: 200, body: { live: true } });
    expect(await get('/v2/health/ready')).toEqual({ status: 200, body: { ready: true } });
  });

  it('answers model metadata, with and without a version', async () => {
    const expected = {
      name: 'tensors',
      versions: ['1'],
      platform: 'onnxruntime_onnx',
      inputs: [
        { name: 'input_ids', ...TOKEN_INPUT },
        { name: 'attention_mask', ...TOKEN_INPUT },
        { name: 'token_type_ids', ...TOKEN_INPUT },
      ],
      outputs: [{ name: 'logits', datatype: 'FP32', shape: [-1, 2] }],
    };
    expect(await get('/v2/models/tensors')).toEqual({ status: 200, body: expected });
    expect(await get('/v2/models/tensors/versions/1')).toEqual({ status: 200, body: expected });
    expect(await get('/v2/models/nope')).toEqual({ status: 404, body: { error: "unknown model 'nope'" } });
    expect(await get('/v2/models/tensors/versions/7')).toEqual({
      status: 404,
      body: { error: "unknown model 'tensors:7'" },
    });
  });

  it('answers model ready: 200 when a worker has it ready, 400 when none does, 404 when unknown', async () => {
    expect(await get('/v2/models/tensors/ready')).toEqual({
      status: 200,
      body: { name: 'tensors', ready: true },
    });
    expect(await get('/v2/models/tensors/versions/1/ready')).toEqual({
      status: 200,
      body: { name: 'tensors', ready: true },
    });
    expect(await get('/v2/models/orphan/ready')).toEqual({
      status: 400,
      body: { name: 'orphan', ready: false },
    });
    expect((await get('/v2/models/nope/ready')).status).toBe(404);
  });

  it('infers a request shaped like the protocol’s example, echoing its id and naming the output asked for', async () => {
    // The protocol's example request: an id, typed inputs with shapes, and one requested output.
    const tokens = [101, 7592, 2088, 102];
    const answer = await post('/v2/models/tensors/versions/1/infer', {
      id: '42',
      inputs: [
        { name: 'input_ids', shape: [1, 4], datatype: 'INT64', data: tokens },
        { name: 'attention_mask', shape: [1, 4], datatype: 'INT64', data: [1, 1, 1, 1] },
        { name: 'token_type_ids', shape: [1, 4], datatype: 'INT64', data: [0, 0, 0, 0] },
      ],
      outputs: [{ name: 'logits' }],
    });
    expect(answer.status).toBe(200);
    const body = answer.body as {
      model_name: string;
      model_version: string;
      id: string;
      outputs: { name: string; datatype: string; shape: number[]; data: number[] }[];
    };
    expect(body).toMatchObject({ model_name: 'tensors', model_version: '1', id: '42' });
    expect(body.outputs.map(({ name, datatype, shape }) => ({ name, datatype, shape }))).toEqual([
      { name: 'logits', datatype: 'FP32', shape: [1, 2] },
    ]);
    expect(body.outputs[0]!.data.every((value) => Number.isFinite(value))).toBe(true);
  });

  it("takes Triton's timeout parameter (µs) as the deadline, and refuses parameters it would not act on", async () => {
    const body = (parameters: Record<string, unknown>, outputs?: unknown[]) => ({
      parameters,
      inputs: [
        { name: 'input_ids', shape: [1, 3], datatype: 'INT64', data: [101, 7592, 102] },
        { name: 'attention_mask', shape: [1, 3], datatype: 'INT64', data: [1, 1, 1] },
        { name: 'token_type_ids', shape: [1, 3], datatype: 'INT64', data: [0, 0, 0] },
      ],
      ...(outputs ? { outputs } : {}),
    });
    // One microsecond has passed before the request reaches a worker: the deadline is the caller's,
    // not the model's 30 s default, so it cannot wait for the model at any speed.
    const expired = await post('/v2/models/tensors/infer', body({ timeout: 1 }));
    expect(expired.status).toBe(504);
    expect((expired.body as { error: string }).error).toMatch(/deadline/i);
    // grpc-js's own message names the worker's address; the client gets a plain one.
    expect((expired.body as { error: string }).error).not.toMatch(/remote_addr|127\.0\.0\.1/);
    const roomy = await post(
      '/v2/models/tensors/infer',
      body({ timeout: 60_000_000, binary_data_output: false }, [
        { name: 'logits', parameters: { binary_data: false } },
      ]),
    );
    expect(roomy.status).toBe(200);
    const binary = await post(
      '/v2/models/tensors/infer',
      body({}, [{ name: 'logits', parameters: { binary_data: true } }]),
    );
    expect(binary).toEqual({
      status: 400,
      body: {
        error:
          "invalid request body: outputs[0].parameters.binary_data: binary tensor data (Triton's binary extension) is not served; send false or leave it out",
      },
    });
    const unknown = await post('/v2/models/tensors/infer', body({ priority: 1 }));
    expect(unknown).toEqual({
      status: 400,
      body: { error: 'invalid request body: parameters.priority: is not a known field' },
    });
  });

  it('answers errors as {"error": "<message>"} with the protocol’s status codes', async () => {
    const unknown = await post('/v2/models/nope/infer', { inputs: [] });
    expect(unknown).toEqual({ status: 404, body: { error: "unknown model 'nope'" } });
    const badType = await post('/v2/models/tensors/infer', {
      inputs: [{ name: 'input_ids', shape: [1, 1], datatype: 'COMPLEX', data: [1] }],
    });
    expect(badType.status).toBe(400);
    expect(Object.keys(badType.body as object)).toEqual(['error']);
    expect((badType.body as { error: string }).error).toMatch(
      /^invalid request body: inputs\[0\]\.datatype: must be one of BOOL/,
    );
    const broken = await post('/v2/models/tensors/infer', '{"inputs": [');
    expect(broken.status).toBe(400);
    expect(typeof (broken.body as { error: unknown }).error).toBe('string');
    const text = await post('/v2/models/tensors/infer', 'hello', 'text/plain');
    expect(text).toEqual({
      status: 415,
      body: { error: 'the body must be JSON (content-type: application/json), not text/plain' },
    });
    const query = await post('/v2/models/tensors/infer?priority=1', { inputs: [] });
    expect(query).toEqual({
      status: 400,
      body: { error: "/v2/models/tensors/infer takes no query parameters; leave out 'priority'" },
    });
    const noRoute = await get('/v2/repository/index');
    expect(noRoute.status).toBe(404);
    expect(typeof (noRoute.body as { error: unknown }).error).toBe('string');
  });

  it('answers a token id outside the vocabulary with 400, not a 500 or a wrong answer', async () => {
    const ids = (data: number[]) => ({
      inputs: [
        { name: 'input_ids', shape: [1, 3], datatype: 'INT64', data },
        { name: 'attention_mask', shape: [1, 3], datatype: 'INT64', data: [1, 1, 1] },
        { name: 'token_type_ids', shape: [1, 3], datatype: 'INT64', data: [0, 0, 0] },
      ],
    });
    const beyond = await post('/v2/models/tensors/infer', ids([101, 99_999_999, 102]));
    expect(beyond.status).toBe(400);
    expect((beyond.body as { error: string }).error).toMatch(
      /^model tensors:1: an input holds an index the model cannot take \(a token id beyond its vocabulary\?\): .*idx=99999999/,
    );
    const negative = await post('/v2/models/tensors/infer', ids([101, -5, 102]));
    expect(negative).toEqual({
      status: 400,
      body: { error: "input 'input_ids' has -5 at element 1: ids index a table and must be 0 or more" },
    });
    expect((await post('/v2/models/tensors/infer', ids([101, 7592, 102]))).status).toBe(200);
  });

  // Last: it stops the worker.
  it('answers 503 naming the model, not the worker’s address, when its worker is gone', async () => {
    await worker.stop();
    const gone = await post('/v2/models/tensors/infer', {
      inputs: [
        { name: 'input_ids', shape: [1, 3], datatype: 'INT64', data: [101, 7592, 102] },
        { name: 'attention_mask', shape: [1, 3], datatype: 'INT64', data: [1, 1, 1] },
        { name: 'token_type_ids', shape: [1, 3], datatype: 'INT64', data: [0, 0, 0] },
      ],
    });
    expect(gone).toEqual({ status: 503, body: { error: 'no worker can serve model tensors:1 right now' } });
  });
});
