/**
 * The in-process transport: a WorkerChannel to a worker running in this process (a co-located
 * gateway, GATEWAY_LOCAL_WORKER). The router, balancing, retries, ejection, deadlines, canaries and
 * shadows are the InferenceClient's, the same code as for remote workers; only the last step
 * differs: instead of HTTP/2 over a socket, the Open Inference Protocol message is serialized with
 * the same protobuf codec as gRPC and handed to the worker's handler in a function call. So the
 * worker sees exactly the message a gRPC call would bring (its own decoding, its own copy of the
 * bytes), and the gateway exactly the answer; errors carry gRPC status codes, as on the wire.
 */
import { type CancelSignal, CancelSource } from '@modelgate/batching';
import { GrpcStatus, MAX_TIMER_MS } from '@modelgate/contracts';
import { type ModelGenerateRequestMessage, type ModelGenerateResponseMessage } from './generate-messages.js';
import { inferenceMethods } from './grpc-worker-channel.js';
import { type ModelInferRequestMessage, type ModelInferResponseMessage } from './infer-messages.js';
import { type WorkerCallOptions, WorkerCallError, type WorkerChannel } from './worker-channel.js';

/** One call as the in-process worker receives it. */
export interface LocalCall {
  /** When the caller stops waiting, ms since the epoch; Infinity for none. */
  readonly deadlineEpochMs: number;
  /** Request metadata, as gRPC metadata would carry it. */
  readonly metadata: Readonly<Record<string, string>>;
  /** Aborts when the caller cancels or the deadline passes (the channel answers DEADLINE_EXCEEDED then). */
  readonly signal: CancelSignal;
}

/**
 * A worker in this process as the in-process transport reaches it. Messages are protobuf bytes
 * of the contracts proto; a failure rejects (or ends the stream) with a WorkerCallError carrying
 * the gRPC status the worker would have sent.
 */
export interface LocalWorkerEndpoint {
  /** The address the worker heartbeats: calls the client routes there take this transport. */
  readonly address: string;
  /** The worker group whose models it serves. */
  readonly workerGroup: string;
  /** ModelInfer: a ModelInferRequest's bytes in, a ModelInferResponse's bytes out. */
  modelInfer(request: Uint8Array, call: LocalCall): Promise<Uint8Array>;
  /**
   * ModelGenerate: each ModelGenerateResponse's bytes to `onMessage` as the worker produces it;
   * settles when the stream ends. Aborting `call.signal` cancels the sequence.
   */
  modelGenerate(
    request: Uint8Array,
    call: LocalCall,
    onMessage: (message: Uint8Array) => void,
  ): Promise<void>;
  /** ServerReady. */
  serverReady(): boolean;
  /** ModelReady (`version` empty: the worker's pick). */
  modelReady(name: string, version: string): boolean;
}

/** The WorkerChannel of an in-process worker. */
export class LocalWorkerChannel implements WorkerChannel {
  readonly address: string;

  constructor(private readonly endpoint: LocalWorkerEndpoint) {
    this.address = endpoint.address;
  }

  async modelInfer(
    request: ModelInferRequestMessage,
    options: WorkerCallOptions,
  ): Promise<ModelInferResponseMessage> {
    const method = inferenceMethods().modelInfer;
    const bytes = method.requestSerialize(request);
    return this.within(options, async (call) => {
      const answer = await this.endpoint.modelInfer(bytes, call);
      return method.responseDeserialize(Buffer.from(answer.buffer, answer.byteOffset, answer.byteLength));
    });
  }

  async *modelGenerate(
    request: ModelGenerateRequestMessage,
    options: WorkerCallOptions,
  ): AsyncGenerator<ModelGenerateResponseMessage> {
    const method = inferenceMethods().modelGenerate;
    const bytes = method.requestSerialize(request);
    const queue = new MessageQueue<ModelGenerateResponseMessage>();
    const cancel = new CancelSource();
    const ended = this.within(
      options,
      (call) =>
        this.endpoint.modelGenerate(bytes, call, (message) =>
          queue.push(
            method.responseDeserialize(Buffer.from(message.buffer, message.byteOffset, message.byteLength)),
          ),
        ),
      cancel,
    );
    ended.then(
      () => queue.end(),
      (error: unknown) => queue.fail(toWorkerCallError(error)),
    );
    let finished = false;
    try {
      for (;;) {
        const next = await queue.next();
        if (next.done) break;
        yield next.value;
      }
      finished = true;
    } finally {
      // The consumer left early (break, return, a throw of its own): the worker frees the slot.
      if (!finished) cancel.abort();
    }
  }

  serverReady(options: WorkerCallOptions): Promise<boolean> {
    return this.within(options, () => Promise.resolve(this.endpoint.serverReady()));
  }

  modelReady(name: string, version: string, options: WorkerCallOptions): Promise<boolean> {
    return this.within(options, () => Promise.resolve(this.endpoint.modelReady(name, version)));
  }

  close(): void {
    // Nothing to close: the worker's life is its process's.
  }

  /**
   * Runs `work` as one call: refused at once when the caller already cancelled; ended with
   * DEADLINE_EXCEEDED at the deadline and CANCELLED when the caller cancels (the worker's signal
   * aborts in both cases), as grpc-js ends a call; the worker's failures become WorkerCallErrors.
   */
  private within<T>(
    options: WorkerCallOptions,
    work: (call: LocalCall) => Promise<T>,
    source = new CancelSource(),
  ): Promise<T> {
    const { signal } = options;
    if (signal?.aborted) {
      return Promise.reject(new WorkerCallError(GrpcStatus.CANCELLED, 'the caller cancelled the call'));
    }
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const end = (error: WorkerCallError): void => {
        settle();
        source.abort();
        reject(error);
      };
      const onAbort = (): void =>
        end(new WorkerCallError(GrpcStatus.CANCELLED, 'the caller cancelled the call'));
      const delayMs = options.deadlineEpochMs - Date.now();
      if (delayMs <= 0) {
        end(new WorkerCallError(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded'));
        return;
      }
      // Past what a Node timer holds, a deadline is as good as none (as grpc-js treats it).
      if (delayMs <= MAX_TIMER_MS) {
        timer = setTimeout(
          () => end(new WorkerCallError(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded')),
          delayMs,
        );
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      const call: LocalCall = {
        deadlineEpochMs: options.deadlineEpochMs,
        metadata: options.metadata ?? {},
        signal: source.signal,
      };
      work(call).then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          reject(toWorkerCallError(error));
        },
      );
    });
  }
}

/** A worker failure as the channel reports it (anything but a WorkerCallError is INTERNAL). */
function toWorkerCallError(error: unknown): WorkerCallError {
  if (error instanceof WorkerCallError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new WorkerCallError(GrpcStatus.INTERNAL, message, { cause: error });
}

/** Messages pushed by a producer, pulled by one consumer; ends or fails once. */
class MessageQueue<T> {
  private readonly items: T[] = [];
  private waiter: { resolve: (r: IteratorResult<T>) => void; reject: (e: Error) => void } | undefined;
  private state: { done: true } | { failed: Error } | undefined;

  push(item: T): void {
    if (this.state) return;
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter) waiter.resolve({ value: item, done: false });
    else this.items.push(item);
  }

  end(): void {
    this.finish({ done: true });
  }

  fail(error: Error): void {
    this.finish({ failed: error });
  }

  next(): Promise<IteratorResult<T>> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve({ value: item, done: false });
    if (this.state) {
      return 'failed' in this.state
        ? Promise.reject(this.state.failed)
        : Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  private finish(state: { done: true } | { failed: Error }): void {
    if (this.state) return;
    this.state = state;
    const waiter = this.waiter;
    this.waiter = undefined;
    if (!waiter) return;
    if ('failed' in state) waiter.reject(state.failed);
    else waiter.resolve({ value: undefined, done: true });
  }
}
