// Fake workers for the InferenceClient's unit specs: pure bookkeeping, no gRPC.
import { GrpcStatus, encodeTensor, isModelgateError } from '@modelgate/contracts';
import { type ModelInferRequestMessage, type ModelInferResponseMessage } from '../../src/infer-messages.js';
import {
  type InferRequest,
  type InferenceClientOptions,
  InferenceClient,
} from '../../src/inference-client.js';
import { type WorkerCallOptions, WorkerCallError, type WorkerChannel } from '../../src/worker-channel.js';

type Answer = 'ok' | 'hold' | keyof typeof GrpcStatus;

/** Fake workers: each address answers as `answers` says; `hold` waits for `releaseAll`. */
export class FakeFleet {
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

export function request(extra: Partial<InferRequest> = {}): InferRequest {
  return {
    modelName: 'bert',
    modelVersion: '1',
    inputs: [{ name: 'input_ids', datatype: 'INT64', dims: [1, 2], data: BigInt64Array.of(101n, 102n) }],
    deadlineEpochMs: Date.now() + 60_000,
    workerGroup: 'g',
    ...extra,
  };
}

export async function failureOf(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; details: object }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isModelgateError(error)) throw new Error(`expected a ModelgateError, got ${String(error)}`);
  return error;
}

export const flush = () => new Promise((resolve) => setImmediate(resolve));
