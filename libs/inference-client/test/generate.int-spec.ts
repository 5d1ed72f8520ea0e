// InferenceClient.generate against real grpc-js servers that speak ModelGenerate with scripted
// answers (the worker's own method is tested with the worker): streaming, retries before the
// first message only, cancellation reaching the server, deadlines and load accounting.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import {
  ErrorCode,
  GrpcStatus,
  INFERENCE_PROTO_PATH,
  INFERENCE_SERVICE_NAME,
  OIP_CLIENT_LOADER_OPTIONS,
} from '@modelgate/contracts';
import {
  type GenerateChunk,
  type GenerateRequest,
  type ModelGenerateRequestMessage,
  InferenceClient,
} from '@modelgate/inference-client';
import { afterEach, describe, expect, it } from 'vitest';

type GenerateStream = grpc.ServerWritableStream<ModelGenerateRequestMessage, object>;
type Script = (call: GenerateStream) => void;

interface ScriptedWorker {
  address: string;
  /** Requests received, with their x-request-id. */
  calls: { request: ModelGenerateRequestMessage; requestId: string | undefined }[];
  /** Resolves when the server saw the running call cancelled. */
  cancelled: Promise<void>;
  stop(): Promise<void>;
}

const servers: ScriptedWorker[] = [];
let client: InferenceClient | undefined;

afterEach(async () => {
  await client?.close();
  client = undefined;
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

function serviceDefinition(): grpc.ServiceDefinition {
  const definition = protoLoader.loadSync(INFERENCE_PROTO_PATH, OIP_CLIENT_LOADER_OPTIONS);
  const [pkg, service] = INFERENCE_SERVICE_NAME.split('.') as [string, string];
  const loaded = grpc.loadPackageDefinition(definition) as unknown as Record<
    string,
    Record<string, { service: grpc.ServiceDefinition }>
  >;
  const found = loaded[pkg]?.[service];
  if (!found) throw new Error(`no ${INFERENCE_SERVICE_NAME}`);
  return found.service;
}

async function startWorker(script: Script): Promise<ScriptedWorker> {
  const server = new grpc.Server();
  const calls: ScriptedWorker['calls'] = [];
  let onCancel: () => void = () => undefined;
  const cancelled = new Promise<void>((resolve) => (onCancel = resolve));
  server.addService(serviceDefinition(), {
    ModelGenerate: (call: GenerateStream) => {
      const requestId = call.metadata.get('x-request-id')[0];
      calls.push({ request: call.request, requestId: typeof requestId === 'string' ? requestId : undefined });
      call.on('cancelled', onCancel);
      script(call);
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  const worker: ScriptedWorker = {
    address: `127.0.0.1:${port}`,
    calls,
    cancelled,
    stop: () => new Promise((resolve) => server.tryShutdown(() => resolve())),
  };
  servers.push(worker);
  return worker;
}

function message(tokenIds: number[], generated: number, finishReason = '') {
  return {
    model_name: 'gpt',
    model_version: '1',
    token_ids: tokenIds,
    finish_reason: finishReason,
    prompt_tokens: 3,
    generated_tokens: generated,
    queue_micros: generated === tokenIds.length ? 1500 : 0,
    compute_micros: 2000 * generated,
  };
}

function fail(status: number, details: string): Script {
  return (call) => call.emit('error', { code: status, details });
}

/** Sends `tokens` one message each, the last with finish_reason `length`. */
function streams(tokens: number[]): Script {
  return (call) => {
    tokens.forEach((token, i) => {
      call.write(message([token], i + 1, i === tokens.length - 1 ? 'length' : ''));
    });
    call.end();
  };
}

/** Sends one token, then holds the call open until the client cancels it or the deadline passes. */
const firstTokenThenHold: Script = (call) => {
  call.write(message([7], 1));
};

function request(addresses: string[], extra: Partial<GenerateRequest> = {}): GenerateRequest {
  return {
    modelName: 'gpt',
    modelVersion: '1',
    id: 'req-1',
    inputIds: [1, 2, 3],
    maxNewTokens: 4,
    eosTokenIds: [50256],
    doSample: true,
    temperature: 0.7,
    topK: 5,
    topP: 0.9,
    seed: 42,
    deadlineEpochMs: Date.now() + 10_000,
    addresses,
    metadata: { 'x-request-id': 'req-1' },
    ...extra,
  };
}

async function collect(chunks: AsyncIterable<GenerateChunk>): Promise<GenerateChunk[]> {
  const out: GenerateChunk[] = [];
  for await (const chunk of chunks) out.push(chunk);
  return out;
}

describe('InferenceClient.generate', () => {
  it('streams the worker messages as chunks and sends every request field', async () => {
    const worker = await startWorker(streams([11, 12, 13]));
    client = new InferenceClient();
    const call = await client.generate(request([worker.address]));
    expect(call.worker).toBe(worker.address);
    expect(client.workerStatus().find((w) => w.address === worker.address)?.outstanding).toBe(1);
    const chunks = await collect(call);
    expect(chunks.map((chunk) => chunk.tokenIds)).toEqual([[11], [12], [13]]);
    expect(chunks.map((chunk) => chunk.finishReason)).toEqual([undefined, undefined, 'length']);
    expect(chunks[0]).toMatchObject({ promptTokens: 3, generatedTokens: 1, queueMs: 1.5, computeMs: 2 });
    expect(worker.calls[0]?.request).toMatchObject({
      model_name: 'gpt',
      model_version: '1',
      input_ids: [1, 2, 3],
      max_new_tokens: 4,
      eos_token_ids: [50256],
      do_sample: true,
      top_k: 5,
      has_seed: true,
      seed: 42,
    });
    expect(worker.calls[0]?.requestId).toBe('req-1');
    expect(client.workerStatus().find((w) => w.address === worker.address)?.outstanding).toBe(0);
  });

  it('answers a full queue as QUEUE_FULL with a Retry-After, without another attempt', async () => {
    const full = await startWorker(fail(GrpcStatus.RESOURCE_EXHAUSTED, 'queue of gpt:1 is full'));
    const other = await startWorker(streams([1]));
    client = new InferenceClient();
    // Equally loaded workers are taken in list order on a new client: the full one first.
    await expect(client.generate(request([full.address, other.address]))).rejects.toMatchObject({
      code: ErrorCode.QUEUE_FULL,
      details: { retryAfterSeconds: 1 },
    });
    expect(full.calls).toHaveLength(1);
    expect(other.calls).toHaveLength(0);
  });

  it('retries UNAVAILABLE before the first message on another worker', async () => {
    const draining = await startWorker(fail(GrpcStatus.UNAVAILABLE, 'draining'));
    const healthy = await startWorker(streams([5, 6]));
    client = new InferenceClient();
    const call = await client.generate(request([draining.address, healthy.address]));
    expect((await collect(call)).flatMap((chunk) => chunk.tokenIds)).toEqual([5, 6]);
    expect(call.worker).toBe(healthy.address);
    expect(call.attempts).toBe(2);
    expect(draining.calls).toHaveLength(1);
  });

  it('cancels the worker call when the consumer stops reading, and frees the worker', async () => {
    const worker = await startWorker(firstTokenThenHold);
    client = new InferenceClient();
    const call = await client.generate(request([worker.address]));
    for await (const chunk of call) {
      expect(chunk.tokenIds).toEqual([7]);
      break;
    }
    await worker.cancelled;
    expect(client.workerStatus().find((w) => w.address === worker.address)?.outstanding).toBe(0);
  });

  it('cancels the worker call when the caller aborts; the iteration then just ends', async () => {
    const worker = await startWorker(firstTokenThenHold);
    client = new InferenceClient();
    const controller = new AbortController();
    const call = await client.generate(request([worker.address], { signal: controller.signal }));
    const seen: number[][] = [];
    for await (const chunk of call) {
      seen.push(chunk.tokenIds);
      controller.abort();
    }
    expect(seen).toEqual([[7]]);
    await worker.cancelled;
    expect(client.workerStatus().find((w) => w.address === worker.address)?.outstanding).toBe(0);
  });

  it('frees the worker at once when the caller aborts a call it never iterated', async () => {
    const worker = await startWorker(firstTokenThenHold);
    client = new InferenceClient();
    const controller = new AbortController();
    await client.generate(request([worker.address], { signal: controller.signal }));
    expect(client.workerStatus().find((w) => w.address === worker.address)?.outstanding).toBe(1);
    controller.abort();
    expect(client.workerStatus().find((w) => w.address === worker.address)?.outstanding).toBe(0);
    await worker.cancelled;
  });

  it('fails the stream with DEADLINE_EXCEEDED when the deadline passes mid-generation', async () => {
    const worker = await startWorker(firstTokenThenHold);
    client = new InferenceClient();
    // The server sends its first message at once, then stalls: the deadline passes mid-stream, or
    // (on a slow machine) before the first message; either step fails the same way.
    const outcome = client
      .generate(request([worker.address], { deadlineEpochMs: Date.now() + 300 }))
      .then((call) => collect(call));
    await expect(outcome).rejects.toMatchObject({ code: ErrorCode.DEADLINE_EXCEEDED });
    expect(worker.calls).toHaveLength(1);
  });

  it('ends a stream cancelled through cancel() without an error', async () => {
    const worker = await startWorker(firstTokenThenHold);
    client = new InferenceClient();
    const call = await client.generate(request([worker.address]));
    const reading = collect(call);
    call.cancel();
    await worker.cancelled;
    expect((await reading).length).toBeLessThanOrEqual(1);
  });
});
