// What the worker sees of an onnxruntime session (onnx-session.adapter.ts implements it): tensors
// in the Open Inference Protocol's datatypes, plain typed arrays and dims.
import type * as ort from 'onnxruntime-node';
import { type GraphSignature } from '../generation/decoder-layout.js';
import { type GenerationCommand, type GenerationEvent } from '../generation/generation-protocol.js';

/** A tensor as the worker handles it: OIP datatype, dims and a typed array in that type. */
export interface WorkerTensor {
  datatype: string;
  dims: number[];
  data: ort.Tensor['data'];
}

/** A model input or output as declared by the ONNX graph; symbolic dims are -1. */
export interface TensorDeclaration {
  name: string;
  datatype: string;
  dims: number[];
}

/** What one run gives back. */
export interface SessionRun {
  outputs: Record<string, WorkerTensor>;
  /** Time inside onnxruntime's `run` on the thread that ran it, in µs (no thread hop). */
  runMicros: number;
}

/** One onnxruntime session, seen through OIP vocabulary. */
export interface OnnxSession {
  /** Whether its intra-op threads spin within a run (the solo session's, session-options.ts). */
  readonly spinsWithinRuns: boolean;
  /**
   * Whether `run` computes on the calling thread (the inline session, onnx-session.inline.ts)
   * instead of a session thread: the event loop waits for the run. Absent means false.
   */
  readonly runsInline?: boolean;
  readonly inputs: readonly TensorDeclaration[];
  readonly outputs: readonly TensorDeclaration[];
  /** image-to-text: the image encoder opened beside the decoder on the same thread. */
  readonly encoder?: GraphSignature | undefined;
  /**
   * Runs the image encoder once on `pixels` [n, C, H, W] FP32 (the warm-up; generation encodes on
   * the thread); its data is handed over (or copied once when it shares its buffer).
   */
  runEncoder?(pixels: WorkerTensor): Promise<SessionRun>;
  /**
   * Runs the graph; `outputNames` limits what is computed and fetched. Feeds whose data is alone
   * in its ArrayBuffer are transferred to the session thread, so the caller must not reuse them.
   */
  run(feeds: Record<string, WorkerTensor>, outputNames?: readonly string[]): Promise<SessionRun>;
  /**
   * Sends a command to the generation loop that runs beside the session on its thread; once the
   * thread is lost, an `add` ends at once with a `failed` event.
   */
  generate(command: GenerationCommand): void;
  /** Where the generation loop's events go, and the reason when the thread dies (one listener). */
  onGeneration(listener: GenerationListener): void;
  /** Why the session can no longer run (its thread died), or undefined while it can. */
  readonly lostReason: string | undefined;
  /** Test hook: makes the session's thread die. */
  crashForTest(): void;
  release(): Promise<void>;
}

/** Hears a session thread's generation loop. */
export interface GenerationListener {
  events(events: GenerationEvent[]): void;
  /** The thread died: every sequence on it is gone. */
  lost(reason: string): void;
}
