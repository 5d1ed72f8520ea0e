/**
 * The inline session: an onnxruntime session on the worker's own event-loop thread. Its `run`
 * computes where the request arrived, with no hop to a session thread and back (about 1 ms on a
 * virtual machine whose idle cores wake slowly), and the event loop waits for it meanwhile. So it
 * runs only what `chooseExecutionPath` (libs/batching execution-path.ts) sends it: a short batch
 * that finds its model idle. With the adapter and its thread, the only code that touches
 * onnxruntime-node; it is loaded on first use, so a worker with inline execution off never loads
 * onnxruntime on its main thread.
 */
import type * as ort from 'onnxruntime-node';
import {
  DATATYPE_BY_RUNTIME_TYPE,
  ErrorCode,
  ModelgateError,
  RUNTIME_TYPE_BY_DATATYPE,
} from '@modelgate/contracts';
import { type ProviderAttempt } from './execution-providers.js';
import { toDeclaration } from './onnx-session.adapter.js';
import { type SessionSettings, sessionOptions, spinsWithinRuns } from '@modelgate/session-settings';
import {
  type OnnxSession,
  type SessionRun,
  type TensorDeclaration,
  type WorkerTensor,
} from './session-types.js';

const ORT_TYPE_BY_OIP = RUNTIME_TYPE_BY_DATATYPE as Readonly<Record<string, ort.Tensor.Type>>;

/** Opens `modelPath` on this thread with the providers of one attempt. */
export async function openInlineSession(
  modelPath: string,
  attempt: ProviderAttempt,
  settings: SessionSettings,
): Promise<OnnxSession> {
  const runtime = await import('onnxruntime-node');
  const session = await runtime.InferenceSession.create(
    modelPath,
    sessionOptions(attempt.providers, settings),
  );
  return new InlineSession(runtime, session, spinsWithinRuns(settings));
}

class InlineSession implements OnnxSession {
  readonly runsInline = true;
  readonly inputs: readonly TensorDeclaration[];
  readonly outputs: readonly TensorDeclaration[];
  private released: string | undefined;

  constructor(
    private readonly runtime: typeof ort,
    private readonly session: ort.InferenceSession,
    readonly spinsWithinRuns: boolean,
  ) {
    this.inputs = session.inputMetadata.map(toDeclaration);
    this.outputs = session.outputMetadata.map(toDeclaration);
  }

  get lostReason(): string | undefined {
    return this.released;
  }

  async run(feeds: Record<string, WorkerTensor>, outputNames?: readonly string[]): Promise<SessionRun> {
    if (this.released !== undefined) throw new Error(this.released);
    const tensors: Record<string, ort.Tensor> = {};
    for (const [name, tensor] of Object.entries(feeds)) {
      const type = ORT_TYPE_BY_OIP[tensor.datatype];
      if (type === undefined)
        throw new ModelgateError(
          ErrorCode.INVALID_ARGUMENT,
          `input '${name}': datatype ${tensor.datatype} is not supported`,
        );
      tensors[name] = new this.runtime.Tensor(type, tensor.data, tensor.dims);
    }
    const started = performance.now();
    // onnxruntime-node runs the graph synchronously on this thread (inside a setImmediate).
    const results = outputNames
      ? await this.session.run(tensors, [...outputNames])
      : await this.session.run(tensors);
    const runMicros = Math.round((performance.now() - started) * 1000);
    const outputs: Record<string, WorkerTensor> = {};
    for (const [name, tensor] of Object.entries(results)) {
      outputs[name] = {
        datatype: DATATYPE_BY_RUNTIME_TYPE[tensor.type] ?? tensor.type,
        dims: [...tensor.dims],
        data: tensor.data,
      };
    }
    return { outputs, runMicros };
  }

  generate(): void {
    // The generation loop lives on a session thread; an inline session is opened for encoders only.
    throw new Error('an inline session runs no generation loop');
  }

  onGeneration(): void {
    // Nothing to hear: see generate().
  }

  crashForTest(): void {
    // The execution policy never sends a session-crash test hook inline (there is no thread to kill).
    throw new Error('an inline session has no thread to crash');
  }

  async release(): Promise<void> {
    if (this.released !== undefined) return;
    this.released = 'the session was released';
    await this.session.release().catch(() => undefined);
  }
}
