/**
 * The session adapter: with its thread (onnx-session.thread.ts) and its inline twin
 * (onnx-session.inline.ts) the only code that touches onnxruntime-node. Everything else sees `OnnxSession`: tensors in the Open Inference
 * Protocol's datatypes, plain typed arrays and dims. Each session runs on its own worker thread,
 * because onnxruntime-node's `run` blocks the thread that calls it.
 */
import { Worker } from 'node:worker_threads';
import type * as ort from 'onnxruntime-node';
import { type SerializedTensor, type ThreadReply, type ThreadRequest } from './onnx-session.thread.js';
import {
  DATATYPE_BY_RUNTIME_TYPE,
  ErrorCode,
  ModelgateError,
  RUNTIME_TYPE_BY_DATATYPE,
} from '@modelgate/contracts';
import { type ProviderAttempt } from './execution-providers.js';
import { type SessionSettings, sessionOptions, spinsWithinRuns } from '@modelgate/session-settings';
import { isDetached, planTransfer } from './tensor-transfer.js';
import { type GraphSignature } from '../generation/decoder-layout.js';
import { type GenerationCommand } from '../generation/generation-protocol.js';
import {
  type GenerationListener,
  type OnnxSession,
  type SessionRun,
  type TensorDeclaration,
  type WorkerTensor,
} from './session-types.js';

export type {
  GenerationListener,
  OnnxSession,
  SessionRun,
  TensorDeclaration,
  WorkerTensor,
} from './session-types.js';

const OIP_BY_ORT_TYPE = DATATYPE_BY_RUNTIME_TYPE;
const ORT_TYPE_BY_OIP = RUNTIME_TYPE_BY_DATATYPE as Readonly<Record<string, ort.Tensor.Type>>;

/**
 * Opens `modelPath` with the providers of one attempt, on a thread of its own; with
 * `encoderPath` (image-to-text) the image encoder too, on the same thread with the same options.
 */
export async function openOnnxSession(
  modelPath: string,
  attempt: ProviderAttempt,
  settings: SessionSettings,
  encoderPath?: string,
): Promise<OnnxSession> {
  const options = sessionOptions(attempt.providers, settings);
  const thread = new Worker(new URL('./onnx-session.thread.js', import.meta.url));
  const session = new ThreadedSession(thread, spinsWithinRuns(settings));
  try {
    await session.open(modelPath, options, encoderPath);
  } catch (error) {
    await thread.terminate();
    throw error;
  }
  return session;
}
/** An OnnxSession whose onnxruntime session lives on a worker thread. */
class ThreadedSession implements OnnxSession {
  inputs: TensorDeclaration[] = [];
  outputs: TensorDeclaration[] = [];
  encoder: GraphSignature | undefined;
  private nextId = 0;
  private readonly pending = new Map<
    number,
    { resolve: (o: SessionRun) => void; reject: (e: Error) => void }
  >();
  private opening: { resolve: () => void; reject: (e: Error) => void } | undefined;
  private releasing: (() => void) | undefined;
  private lost: string | undefined;
  private generation: GenerationListener | undefined;

  constructor(
    private readonly thread: Worker,
    readonly spinsWithinRuns: boolean,
  ) {
    thread.on('message', (message: ThreadReply) => this.onMessage(message));
    thread.on('error', (error) => this.loseThread(`the session thread failed: ${error.message}`));
    thread.on('exit', (code) => this.loseThread(`the session thread exited (code ${code})`));
  }

  get lostReason(): string | undefined {
    return this.lost;
  }

  crashForTest(): void {
    this.post({ type: 'crash' });
  }

  generate(command: GenerationCommand): void {
    if (this.lost === undefined) {
      // An image crosses once: handed over, or copied once when it shares a gRPC message's buffer.
      const image = command.type === 'add' ? command.pixels : undefined;
      const { tensors, transfer } = planTransfer(image ? { image } : {});
      const sent = command.type === 'add' && tensors.image ? { ...command, pixels: tensors.image } : command;
      const message: ThreadRequest = { type: 'generate', command: sent };
      this.thread.postMessage(message, transfer);
    } else if (command.type === 'add') {
      // A dead thread never answers: end the sequence now (as the thread would, asynchronously).
      const message = `generation failed: ${this.lost}`;
      queueMicrotask(() =>
        this.generation?.events([{ type: 'ended', seq: command.seq, reason: 'failed', message }]),
      );
    }
  }

  onGeneration(listener: GenerationListener): void {
    this.generation = listener;
  }

  open(modelPath: string, options: ort.InferenceSession.SessionOptions, encoderPath?: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.opening = { resolve, reject };
      this.post({ type: 'open', modelPath, options, ...(encoderPath !== undefined ? { encoderPath } : {}) });
    });
  }

  runEncoder(pixels: WorkerTensor): Promise<SessionRun> {
    if (this.lost !== undefined) return Promise.reject(new Error(this.lost));
    if (!this.encoder) return Promise.reject(new Error('this session has no image encoder'));
    if (!(pixels.data instanceof Float32Array))
      return Promise.reject(invalid('the image encoder takes FP32 pixel_values'));
    const { tensors, transfer } = planTransfer({
      pixels: { type: 'float32' as const, data: pixels.data, dims: pixels.dims },
    });
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const message: ThreadRequest = { type: 'encode', id, pixels: tensors.pixels! };
      this.thread.postMessage(message, transfer);
    });
  }

  run(feeds: Record<string, WorkerTensor>, outputNames?: readonly string[]): Promise<SessionRun> {
    // A dead thread never answers: fail at once rather than wait forever.
    if (this.lost !== undefined) return Promise.reject(new Error(this.lost));
    const typed: Record<string, SerializedTensor> = {};
    for (const [name, tensor] of Object.entries(feeds)) {
      const type = ORT_TYPE_BY_OIP[tensor.datatype];
      if (type === undefined)
        return Promise.reject(invalid(`input '${name}': datatype ${tensor.datatype} is not supported`));
      if (isDetached(tensor.data, tensor.dims))
        return Promise.reject(
          new Error(`input '${name}' was already handed to a session thread (its buffer is detached)`),
        );
      typed[name] = { type, data: tensor.data, dims: tensor.dims };
    }
    // Feeds alone in their buffer are handed over; a view into a larger one (a gRPC message)
    // crosses as one copy of its own bytes, transferred too: no feed is copied twice.
    const { tensors: serialized, transfer } = planTransfer(typed);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const message: ThreadRequest = {
        type: 'run',
        id,
        feeds: serialized,
        ...(outputNames ? { outputNames: [...outputNames] } : {}),
      };
      this.thread.postMessage(message, transfer);
    });
  }

  async release(): Promise<void> {
    if (this.lost !== undefined) return;
    this.lost = 'the session was released';
    await new Promise<void>((resolve) => {
      this.releasing = resolve;
      this.post({ type: 'release' });
      setTimeout(resolve, 5000).unref();
    });
    await this.thread.terminate();
  }

  private post(message: ThreadRequest): void {
    this.thread.postMessage(message);
  }

  private onMessage(message: ThreadReply): void {
    switch (message.type) {
      case 'opened':
        this.inputs = message.inputs.map(toDeclaration);
        this.outputs = message.outputs.map(toDeclaration);
        if (message.encoder) {
          this.encoder = {
            inputs: message.encoder.inputs.map(toDeclaration),
            outputs: message.encoder.outputs.map(toDeclaration),
          };
        }
        this.opening?.resolve();
        this.opening = undefined;
        return;
      case 'result': {
        const outputs: Record<string, WorkerTensor> = {};
        for (const [name, tensor] of Object.entries(message.outputs)) {
          outputs[name] = {
            datatype: OIP_BY_ORT_TYPE[tensor.type] ?? tensor.type,
            dims: tensor.dims,
            data: tensor.data,
          };
        }
        this.settle(message.id)?.resolve({ outputs, runMicros: message.runMicros });
        return;
      }
      case 'failed':
        if (message.id === undefined) {
          this.opening?.reject(new Error(message.message));
          this.opening = undefined;
        } else {
          this.settle(message.id)?.reject(new Error(message.message));
        }
        return;
      case 'released':
        this.releasing?.();
        return;
      case 'generation':
        this.generation?.events(message.events);
        return;
    }
  }

  private settle(id: number) {
    const entry = this.pending.get(id);
    this.pending.delete(id);
    return entry;
  }

  private loseThread(reason: string): void {
    const first = this.lost === undefined;
    this.lost ??= reason;
    this.failAll(new Error(reason));
    if (first) this.generation?.lost(reason);
  }

  private failAll(error: Error): void {
    this.opening?.reject(error);
    this.opening = undefined;
    for (const entry of this.pending.values()) entry.reject(error);
    this.pending.clear();
    this.releasing?.();
  }
}

/** A graph input or output as the worker declares it (symbolic dims -1). */
export function toDeclaration(meta: ort.InferenceSession.ValueMetadata): TensorDeclaration {
  if (!meta.isTensor) return { name: meta.name, datatype: 'UNSUPPORTED', dims: [] };
  return {
    name: meta.name,
    datatype: OIP_BY_ORT_TYPE[meta.type] ?? meta.type,
    dims: meta.shape.map((dim) => (typeof dim === 'number' && dim >= 0 ? dim : -1)),
  };
}

function invalid(message: string): ModelgateError {
  return new ModelgateError(ErrorCode.INVALID_ARGUMENT, message);
}
