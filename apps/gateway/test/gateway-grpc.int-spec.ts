// The gateway's public gRPC face (GATEWAY_GRPC_PORT) through a real gateway process and worker
// process, called by a client that writes the public KServe / Triton field numbers
// (support/kserve-wire-client.ts): text as BYTES to endpoints answers what /serve answers, raw
// tensors pass through to the model as /v2 REST does, and ModelStreamInfer streams a generation
// whose deltas add up to /serve's text.
import { status as GrpcStatus, Metadata } from '@grpc/grpc-js';
import {
  KserveWireClient,
  type RunningGateway,
  type RunningWorker,
  type WireResponse,
  freePort,
  rawBytes,
  readRawBytes,
  startServingPair,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const TEXTS = ['I love this movie!', 'A dull, tedious film.'];

describe('gateway: the public Open Inference Protocol gRPC face', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let client: KserveWireClient;

  beforeAll(async () => {
    const grpcPort = await freePort();
    ({ worker, gateway } = await startServingPair(
      [
        { name: 'bert', fixture: 'tiny-bert-sst2' },
        { name: 'gpt', fixture: 'tiny-gpt2', task: 'text-generation' },
      ],
      {
        endpoints: [
          {
            name: 'sentiment',
            task: 'text-classification',
            routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
          },
          {
            name: 'writer',
            task: 'text-generation',
            routes: [{ model: 'gpt:1', weight: 100, role: 'primary' }],
          },
        ],
        gatewayEnv: { GATEWAY_GRPC_PORT: String(grpcPort) },
      },
    ));
    client = new KserveWireClient(`127.0.0.1:${grpcPort}`);
  });

  afterAll(async () => {
    client?.close();
    await gateway?.stop();
    await worker?.stop();
  });

  const predictions = (response: WireResponse): unknown[] =>
    readRawBytes(response.raw[0] ?? new Uint8Array()).map((element) => JSON.parse(element) as unknown);

  const grpcCode = async (call: Promise<unknown>): Promise<number | undefined> =>
    call.then(
      () => undefined,
      (error: { code?: number }) => error.code,
    );

  it('answers text sent as BYTES as /serve answers it, in raw or typed contents', async () => {
    const expected = await gateway.post('/serve/sentiment', { text: TEXTS, parameters: { top_k: 2 } });
    expect(expected.status).toBe(200);
    const raw = await client.modelInfer({
      model: 'sentiment',
      id: 'req-1',
      parameters: { top_k: 2 },
      inputs: [{ name: 'text', datatype: 'BYTES', shape: [2], raw: rawBytes(TEXTS) }],
    });
    expect(raw).toMatchObject({ modelName: 'sentiment', modelVersion: '1', id: 'req-1' });
    expect(raw.outputs).toEqual([{ name: 'predictions', datatype: 'BYTES', shape: [2] }]);
    expect(raw.parameters).toMatchObject({ modelgate_model: 'bert:1', modelgate_route: 'primary' });
    expect(predictions(raw)).toEqual((expected.body as { predictions: unknown[] }).predictions);

    const typed = await client.modelInfer({
      model: 'sentiment',
      parameters: { top_k: 2 },
      inputs: [{ name: 'text', datatype: 'BYTES', shape: [2, 1], bytesContents: TEXTS }],
    });
    expect(predictions(typed)).toEqual(predictions(raw));
  });

  it('passes raw tensors through to the model by its name, as /v2 REST does', async () => {
    const ids = [101, 1045, 2293, 2023, 3185, 999, 102];
    const tensor = (values: number[]) => Buffer.from(BigInt64Array.from(values.map(BigInt)).buffer);
    const inputs = [
      { name: 'input_ids', datatype: 'INT64', shape: [1, ids.length], raw: tensor(ids) },
      { name: 'attention_mask', datatype: 'INT64', shape: [1, ids.length], raw: tensor(ids.map(() => 1)) },
    ];
    const metadata = await client.modelMetadata('bert');
    const names = metadata.inputs.map((input) => input.name);
    const response = await client.modelInfer({
      model: 'bert',
      inputs: inputs
        .filter((input) => names.includes(input.name))
        .concat(
          names.includes('token_type_ids')
            ? [
                {
                  name: 'token_type_ids',
                  datatype: 'INT64',
                  shape: [1, ids.length],
                  raw: tensor(ids.map(() => 0)),
                },
              ]
            : [],
        ),
    });
    expect(response.modelName).toBe('bert');
    expect(response.outputs[0]).toMatchObject({ name: 'logits', datatype: 'FP32', shape: [1, 2] });
    const logits = Array.from(new Float32Array(new Uint8Array(response.raw[0] ?? []).slice().buffer));
    const rest = await gateway.post('/v2/models/bert/infer', {
      inputs: names.map((name) => ({
        name,
        datatype: 'INT64',
        shape: [1, ids.length],
        data: name === 'input_ids' ? ids : ids.map(() => (name === 'attention_mask' ? 1 : 0)),
      })),
    });
    const restLogits = (rest.body as { outputs: { data: number[] }[] }).outputs[0]?.data ?? [];
    logits.forEach((value, i) => expect(Math.abs(value - (restLogits[i] ?? NaN))).toBeLessThan(1e-5));
  });

  it('describes endpoints by the text inputs they read, and says what is ready', async () => {
    expect(await client.serverReady()).toBe(true);
    expect(await client.modelReady('sentiment')).toBe(true);
    expect(await client.modelMetadata('sentiment')).toEqual({
      name: 'sentiment',
      versions: ['1'],
      platform: 'modelgate_endpoint',
      inputs: [
        { name: 'text', datatype: 'BYTES', shape: [-1] },
        { name: 'text_pair', datatype: 'BYTES', shape: [-1] },
      ],
      outputs: [{ name: 'predictions', datatype: 'BYTES', shape: [-1] }],
    });
  });

  it('answers gRPC statuses for what it refuses', async () => {
    expect(
      await grpcCode(
        client.modelInfer({
          model: 'nope',
          inputs: [{ name: 'text', datatype: 'BYTES', shape: [1], raw: rawBytes(['x']) }],
        }),
      ),
    ).toBe(GrpcStatus.NOT_FOUND);
    expect(
      await grpcCode(
        client.modelInfer({
          model: 'sentiment',
          inputs: [{ name: 'txt', datatype: 'BYTES', shape: [1], raw: rawBytes(['x']) }],
        }),
      ),
    ).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(
      await grpcCode(
        client.modelInfer({
          model: 'sentiment',
          parameters: { top_k: 'many' },
          inputs: [{ name: 'text', datatype: 'BYTES', shape: [1], raw: rawBytes(['x']) }],
        }),
      ),
    ).toBe(GrpcStatus.INVALID_ARGUMENT);
    const sticky = new Metadata();
    sticky.set('x-modelgate-route-key', 'user-1');
    const answered = await client.modelInfer(
      { model: 'sentiment', inputs: [{ name: 'text', datatype: 'BYTES', shape: [1], raw: rawBytes(['x']) }] },
      sticky,
    );
    expect(answered.modelVersion).toBe('1');
  });

  it('streams a generation with ModelStreamInfer, its deltas adding up to /serve, and goes on past a failed request', async () => {
    const prompt = 'The capital of France is';
    const expected = await gateway.post('/serve/writer', { text: prompt, parameters: { max_new_tokens: 8 } });
    expect(expected.status).toBe(200);
    const generated = (expected.body as { predictions: { generated_text: string }[] }).predictions[0]
      ?.generated_text;
    const responses = await client.modelStreamInfer([
      {
        model: 'writer',
        id: 'gen',
        parameters: { max_new_tokens: 8 },
        inputs: [{ name: 'text', datatype: 'BYTES', shape: [1], raw: rawBytes([prompt]) }],
      },
      {
        model: 'nope',
        id: 'bad',
        inputs: [{ name: 'text', datatype: 'BYTES', shape: [1], raw: rawBytes(['x']) }],
      },
    ]);
    const failures = responses.filter((response): response is { error: string } => 'error' in response);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.error).toContain('nope');
    const ours = responses.filter(
      (response): response is WireResponse => !('error' in response) && response.id === 'gen',
    );
    const last = ours.at(-1);
    expect(last?.parameters).toMatchObject({ triton_final_response: true, finish_reason: 'length' });
    const deltas = ours.slice(0, -1);
    expect(deltas.length).toBeGreaterThan(1);
    for (const delta of deltas)
      expect(delta.outputs).toEqual([{ name: 'text_output', datatype: 'BYTES', shape: [1] }]);
    expect(deltas.map((delta) => readRawBytes(delta.raw[0] ?? new Uint8Array())[0]).join('')).toBe(generated);
  });
});

describe('gateway: the gRPC face of a cluster of event loops', () => {
  it('answers on its one port when GATEWAY_WORKERS=2 runs two event loops behind it', async () => {
    const grpcPort = await freePort();
    const { worker, gateway } = await startServingPair([{ name: 'bert', fixture: 'tiny-bert-sst2' }], {
      endpoints: [
        {
          name: 'sentiment',
          task: 'text-classification',
          routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
        },
      ],
      gatewayEnv: { GATEWAY_GRPC_PORT: String(grpcPort), GATEWAY_WORKERS: '2' },
    });
    try {
      // Separate connections, which the cluster's primary hands to the loops in turn.
      const answers = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const client = new KserveWireClient(`127.0.0.1:${grpcPort}`);
          try {
            const response = await client.modelInfer({
              model: 'sentiment',
              inputs: [{ name: 'text', datatype: 'BYTES', shape: [1], raw: rawBytes(['good']) }],
            });
            return readRawBytes(response.raw[0] ?? new Uint8Array())[0];
          } finally {
            client.close();
          }
        }),
      );
      const expected = await gateway.post('/serve/sentiment', { text: ['good'] });
      expect(new Set(answers)).toEqual(
        new Set([JSON.stringify((expected.body as { predictions: unknown[] }).predictions[0])]),
      );
    } finally {
      await gateway.stop();
      await worker.stop();
    }
  });
});
