import { GrpcStatus, encodeTensor, isModelgateError } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { type ModelInferRequestMessage, type ModelInferResponseMessage } from './infer-messages.js';
import { type InferRequest, type InferenceClientOptions, InferenceClient } from './inference-client.js';
import { type WorkerCallOptions, WorkerCallError, type WorkerChannel } from './worker-channel.js';

type Answer = 'ok' | 'hold' | keyof typeof GrpcStatus;

/** Fake workers: each address answers as `answers` says; `hold` waits for `releaseAll`. */
class FakeFleet {
  readonly answers = new Map<string, Answer>();
  readonly channels: FakeChannel[] = [];
  readonly requests: { address: string; request: ModelInferRequestMessage }[] = [];
  private held: { address: string; release: () => void; fail: (error: Error) => void }[] = [];
  readonly time = { now: 0 };

  client(options: InferenceClientOptions = {}): InferenceClient {
    return new InferenceClient({
      now: () => this.time.now,
      createChannel: (address) => {
        const channel = new FakeChannel(address, this);
        this.channels.push(channel);
        return channel;
      },
      ...options,
    });
  }

  callsTo(address: string): number {
    return this.requests.filter((r) => r.address === address).length;
  }

  answer(address: string, request: ModelInferRequestMessage, options: WorkerCallOptions) {
    this.requests.push({ address, request });
    const answer = this.answers.get(address) ?? 'ok';
    if (answer === 'ok') return Promise.resolve(okResponse(request));
    if (answer !== 'hold') {
      return Promise.reject(new WorkerCallError(GrpcStatus[answer], `${answer} from ${address}`));
    }
    return new Promise<ModelInferResponseMessage>((resolve, reject) => {
      options.signal?.addEventListener('abort', () =>
        reject(new WorkerCallError(GrpcStatus.CANCELLED, 'Cancelled on client')),
      );
      this.held.push({ address, release: () => resolve(okResponse(request)), fail: reject });
    });
  }

  releaseAll(): void {
    const held = this.held;
    this.held = [];
    for (const call of held) call.release();
  }

  /** Fails every call `address` holds at once, as a worker that dies does. */
  failHeld(address: string, status: keyof typeof GrpcStatus): void {
    const failing = this.held.filter((call) => call.address === address);
    this.held = this.held.filter((call) => call.address !== address);
    for (const call of failing)
      call.fail(new WorkerCallError(GrpcStatus[status], `${status} from ${address}`));
  }
}

class FakeChannel implements WorkerChannel {
  closed = false;

  constructor(
    readonly address: string,
    private readonly fleet: FakeFleet,
  ) {}

  modelInfer(request: ModelInferRequestMessage, options: WorkerCallOptions) {
    return this.fleet.answer(this.address, request, options);
  }

  modelGenerate(): AsyncIterable<never> {
    throw new Error('generation is tested in generate-call.spec.ts');
  }

  serverReady(): Promise<boolean> {
    return Promise.resolve(this.fleet.answers.get(this.address) === 'ok');
  }

  modelReady(name: string): Promise<boolean> {
    if (this.fleet.answers.get(this.address) === 'UNAVAILABLE') {
      return Promise.reject(new WorkerCallError(GrpcStatus.UNAVAILABLE, 'connect ECONNREFUSED'));
    }
    return Promise.resolve(name === 'bert');
  }

  close(): void {
    this.closed = true;
  }
}

function okResponse(request: ModelInferRequestMessage): ModelInferResponseMessage {
  return {
    model_name: request.model_name,
    model_version: '1',
    id: request.id,
    outputs: [{ name: 'logits', datatype: 'FP32', shape: [1, 2] }],
    raw_output_contents: [Buffer.from(encodeTensor('FP32', [1, 2], Float32Array.of(0.5, -0.5)))],
  };
}

function request(extra: Partial<InferRequest> = {}): InferRequest {
  return {
    modelName: 'bert',
    modelVersion: '1',
    inputs: [{ name: 'input_ids', datatype: 'INT64', dims: [1, 2], data: BigInt64Array.of(101n, 102n) }],
    deadlineEpochMs: Date.now() + 60_000,
    workerGroup: 'g',
    ...extra,
  };
}

async function failureOf(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; details: object }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isModelgateError(error)) throw new Error(`expected a ModelgateError, got ${String(error)}`);
  return error;
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('InferenceClient', () => {
  it('sends raw tensors to a worker of the group and decodes its answer', async () => {
    const fleet = new FakeFleet();
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a'] }] });
    const result = await client.infer(request({ id: 'r1', outputs: ['logits'] }));
    expect(result).toMatchObject({
      worker: 'a',
      attempts: 1,
      modelName: 'bert',
      modelVersion: '1',
      id: 'r1',
    });
    expect([...(result.outputs.logits?.data as Float32Array)]).toEqual([0.5, -0.5]);
    const sent = fleet.requests[0]?.request;
    expect(sent).toMatchObject({
      model_name: 'bert',
      model_version: '1',
      id: 'r1',
      outputs: [{ name: 'logits' }],
    });
    expect(sent?.raw_input_contents).toHaveLength(1);
  });

  it('spreads concurrent calls by least outstanding requests', async () => {
    const fleet = new FakeFleet();
    for (const address of ['a', 'b', 'c']) fleet.answers.set(address, 'hold');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b', 'c'] }] });
    const calls = Array.from({ length: 9 }, () => client.infer(request()));
    expect(client.workerStatus().map((w) => w.outstanding)).toEqual([3, 3, 3]);
    fleet.releaseAll();
    const workers = (await Promise.all(calls)).map((r) => r.worker).sort();
    expect(workers).toEqual(['a', 'a', 'a', 'b', 'b', 'b', 'c', 'c', 'c']);
  });

  it('weighs outstanding rows, not calls: a big call counts as many small ones', async () => {
    const fleet = new FakeFleet();
    for (const address of ['a', 'b']) fleet.answers.set(address, 'hold');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b'] }] });
    const eight = BigInt64Array.from({ length: 16 }, () => 7n);
    const big = client.infer(
      request({ inputs: [{ name: 'input_ids', datatype: 'INT64', dims: [8, 2], data: eight }] }),
    );
    const small = Array.from({ length: 3 }, () => client.infer(request()));
    fleet.releaseAll();
    const bigWorker = (await big).worker;
    const smallWorkers = (await Promise.all(small)).map((r) => r.worker);
    expect(smallWorkers).toEqual(Array(3).fill(bigWorker === 'a' ? 'b' : 'a'));
  });

  it('retries UNAVAILABLE once, on a different worker', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'UNAVAILABLE');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b'] }] });
    const result = await client.infer(request());
    expect(result).toMatchObject({ worker: 'b', attempts: 2 });
    expect(fleet.requests.map((r) => r.address)).toEqual(['a', 'b']);
  });

  it('gives up after its one retry and reports UNAVAILABLE', async () => {
    const fleet = new FakeFleet();
    for (const address of ['a', 'b', 'c']) fleet.answers.set(address, 'UNAVAILABLE');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b', 'c'] }] });
    expect(await failureOf(client.infer(request()))).toMatchObject({ code: 'UNAVAILABLE' });
    expect(fleet.requests).toHaveLength(2);
  });

  it('does not retry when the group has no other worker', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'UNAVAILABLE');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a'] }] });
    expect(await failureOf(client.infer(request()))).toMatchObject({ code: 'UNAVAILABLE' });
    expect(fleet.requests).toHaveLength(1);
  });

  it.each([
    ['DEADLINE_EXCEEDED', 'DEADLINE_EXCEEDED', {}],
    ['INVALID_ARGUMENT', 'INVALID_ARGUMENT', {}],
    ['RESOURCE_EXHAUSTED', 'QUEUE_FULL', { retryAfterSeconds: 1 }],
  ] as const)('never retries %s (surfaced as %s)', async (status, code, details) => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', status);
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b'] }] });
    const error = await failureOf(client.infer(request()));
    expect(error).toMatchObject({ code, message: `${status} from a`, details });
    expect(fleet.callsTo('b')).toBe(0);
  });

  it('answers UNAVAILABLE naming the model when the group has no worker, without dialling anyone', async () => {
    const fleet = new FakeFleet();
    const client = fleet.client({ workerGroups: [{ name: 'empty', addresses: [] }] });
    for (const group of ['empty', 'unknown']) {
      expect(await failureOf(client.infer(request({ workerGroup: group })))).toMatchObject({
        code: 'UNAVAILABLE',
        message: "no ready worker for model 'bert:1'",
      });
    }
    expect(fleet.channels).toHaveLength(0);
  });

  it('passes over a worker that just refused a connection, ejects it after three, re-admits it after five seconds', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'UNAVAILABLE');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b'] }] });
    for (let i = 0; i < 20; i++) await client.infer(request());
    expect(fleet.callsTo('a')).toBe(1); // suspect for a second after its failure: no call costs a retry
    for (let round = 0; round < 2; round++) {
      fleet.time.now += 1_000;
      for (let i = 0; i < 4; i++) await client.infer(request());
    }
    expect(fleet.callsTo('a')).toBe(3);
    expect(client.workerStatus().find((w) => w.address === 'a')).toMatchObject({ ejected: true, calls: 3 });
    fleet.time.now += 5_000;
    fleet.answers.set('a', 'ok');
    await Promise.all([client.infer(request()), client.infer(request())]);
    expect(fleet.callsTo('a')).toBe(4);
  });

  it('in panic mode still tries an ejected worker rather than failing outright', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'UNAVAILABLE');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a'] }] });
    for (let i = 0; i < 3; i++) await failureOf(client.infer(request()));
    expect(client.workerStatus()[0]?.ejected).toBe(true);
    fleet.answers.set('a', 'ok');
    expect(await client.infer(request())).toMatchObject({ worker: 'a' });
  });

  it('stops retrying once the retry budget is spent', async () => {
    const fleet = new FakeFleet();
    for (const address of ['a', 'b']) fleet.answers.set(address, 'UNAVAILABLE');
    const client = fleet.client({
      workerGroups: [{ name: 'g', addresses: ['a', 'b'] }],
      retryBudget: { ratio: 0, minRetries: 2 },
      outlierEjection: { consecutiveFailures: 1000 },
    });
    for (let i = 0; i < 5; i++) {
      fleet.time.now += 1; // each call starts after the workers' failure streaks began
      await failureOf(client.infer(request()));
    }
    expect(fleet.requests).toHaveLength(2 * 2 + 3);
    fleet.time.now += 1_000;
    await failureOf(client.infer(request()));
    expect(fleet.requests).toHaveLength(9);
  });

  it('retries every call a dying worker held, beyond the budget (later calls: see the budget test)', async () => {
    const fleet = new FakeFleet();
    for (const address of ['a', 'b']) fleet.answers.set(address, 'hold');
    const client = fleet.client({
      workerGroups: [{ name: 'g', addresses: ['a', 'b'] }],
      retryBudget: { ratio: 0, minRetries: 0 }, // the budget alone allows no retry at all
      outlierEjection: { consecutiveFailures: 1000 },
    });
    const calls = Array.from({ length: 40 }, () => client.infer(request()));
    await Promise.resolve();
    expect(fleet.callsTo('a')).toBe(20);
    fleet.answers.set('b', 'ok');
    fleet.answers.set('a', 'UNAVAILABLE');
    fleet.time.now += 1;
    fleet.failHeld('a', 'UNAVAILABLE'); // a dies with 20 calls in flight
    fleet.releaseAll();
    const results = await Promise.all(calls);
    expect(results.every((result) => result.worker === 'b')).toBe(true);
    expect(results.filter((result) => result.attempts === 2)).toHaveLength(20);
  });

  it('keeps the channels of addresses that stay and closes removed ones after their running calls', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'hold');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b'] }] });
    const held = client.infer(request({ addresses: ['a'] }));
    await client.infer(request({ addresses: ['b'] }));
    client.setWorkerGroups([{ name: 'g', addresses: ['b', 'c'] }]);
    const [a, b] = fleet.channels;
    expect(a?.closed).toBe(false);
    fleet.releaseAll();
    await held;
    expect(a?.closed).toBe(true);
    await client.infer(request());
    await client.infer(request());
    expect(fleet.channels.map((c) => c.address)).toEqual(['a', 'b', 'c']);
    expect(b?.closed).toBe(false);
    expect(client.addressesOf('g')).toEqual(['b', 'c']);
  });

  it('cancels the call when the caller aborts, without a retry', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'hold');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b'] }] });
    const abort = new AbortController();
    const call = client.infer(request({ signal: abort.signal }));
    await flush();
    abort.abort();
    expect(await failureOf(call)).toMatchObject({ code: 'CANCELLED' });
    expect(fleet.requests).toHaveLength(1);
  });

  it('closes after the running calls end and refuses calls from then on', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'hold');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a'] }] });
    const held = client.infer(request());
    let closed = false;
    const closing = client.close().then(() => (closed = true));
    await flush();
    expect(closed).toBe(false);
    fleet.releaseAll();
    await Promise.all([held, closing]);
    expect(fleet.channels[0]?.closed).toBe(true);
    expect(await failureOf(client.infer(request()))).toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('refuses a call without a finite deadline before dialling', async () => {
    const fleet = new FakeFleet();
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a'] }] });
    expect(await failureOf(client.infer(request({ deadlineEpochMs: Number.NaN })))).toMatchObject({
      code: 'INTERNAL',
    });
    expect(fleet.requests).toHaveLength(0);
  });

  it('reports readiness per worker and per group, treating failures as not ready', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'ok');
    fleet.answers.set('b', 'UNAVAILABLE');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b'] }] });
    expect(await client.serverReady('a')).toBe(true);
    expect(await client.modelReady('b', 'bert', '1')).toBe(false);
    expect(await client.hasReadyWorker('g', 'bert', '1')).toBe(true);
    expect(await client.hasReadyWorker('g', 'other')).toBe(false);
    expect(await client.hasReadyWorker('nobody', 'bert')).toBe(false);
  });
});
