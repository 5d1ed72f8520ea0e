/**
 * The thread that owns one onnxruntime session. onnxruntime-node runs `session.run` synchronously
 * on the calling thread, so each model instance lives on a thread of its own: the worker's event
 * loop keeps answering gRPC (admission, deadlines, cancellations) while a batch computes, and
 * `instances` sessions really run side by side. Together with onnx-session.adapter.ts this is
 * the only code that touches onnxruntime-node.
 */
import { parentPort } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { transferableBuffers } from './tensor-transfer.js';
import { type RunStep, type StepOutputs } from '../generation/decode-batch.js';
import { LAST_HIDDEN_STATE, PIXEL_VALUES } from '../generation/decoder-layout.js';
import { type EncodeImages } from '../generation/encoder-states.js';
import { GenerationLoop } from '../generation/generation-loop.js';
import { type GenerationCommand, type GenerationEvent } from '../generation/generation-protocol.js';

/** Messages from the adapter. */
export type ThreadRequest =
  /** Opens the model, and with `encoderPath` (image-to-text) its image encoder beside it, alike. */
  | {
      type: 'open';
      modelPath: string;
      encoderPath?: string;
      options: ort.InferenceSession.SessionOptions;
    }
  /** Runs the image encoder once (warm-up); answered with `result`. */
  | { type: 'encode'; id: number; pixels: SerializedTensor }
  | { type: 'run'; id: number; feeds: Record<string, SerializedTensor>; outputNames?: string[] }
  | { type: 'release' }
  /** To the generation loop of a decoder session (its KV cache stays on this thread). */
  | { type: 'generate'; command: GenerationCommand }
  /** Test hook (WORKER_TEST_HOOKS only): the thread dies as a native crash would take it. */
  | { type: 'crash' };

/** Messages to the adapter. */
export type ThreadReply =
  | {
      type: 'opened';
      inputs: ort.InferenceSession.ValueMetadata[];
      outputs: ort.InferenceSession.ValueMetadata[];
      /** The image encoder's, when one was opened. */
      encoder?: {
        inputs: ort.InferenceSession.ValueMetadata[];
        outputs: ort.InferenceSession.ValueMetadata[];
      };
    }
  | { type: 'result'; id: number; outputs: Record<string, SerializedTensor>; runMicros: number }
  | { type: 'failed'; id?: number; message: string }
  | { type: 'released' }
  | { type: 'generation'; events: GenerationEvent[] };

/** A tensor as it crosses threads: onnxruntime's type name, data and dims. */
export interface SerializedTensor {
  type: ort.Tensor.Type;
  data: ort.Tensor['data'];
  dims: number[];
}

const port = parentPort;
if (!port) throw new Error('onnx-session.thread must run in a worker thread');

let session: ort.InferenceSession | undefined;
/** image-to-text: the image encoder, owned by this thread with the decoder (its states never cross). */
let encoder: ort.InferenceSession | undefined;
let generation: GenerationLoop | undefined;

const reply = (message: ThreadReply, transfer: readonly ArrayBuffer[] = []): void =>
  port.postMessage(message, [...transfer]);
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

port.on('message', (request: ThreadRequest) => {
  void handle(request);
});

async function handle(request: ThreadRequest): Promise<void> {
  switch (request.type) {
    case 'open':
      try {
        session = await ort.InferenceSession.create(request.modelPath, request.options);
        if (request.encoderPath !== undefined)
          encoder = await ort.InferenceSession.create(request.encoderPath, request.options);
        reply({
          type: 'opened',
          inputs: [...session.inputMetadata],
          outputs: [...session.outputMetadata],
          ...(encoder
            ? { encoder: { inputs: [...encoder.inputMetadata], outputs: [...encoder.outputMetadata] } }
            : {}),
        });
      } catch (error) {
        reply({ type: 'failed', message: messageOf(error) });
      }
      return;
    case 'run':
      try {
        if (!session) throw new Error('the session is not open');
        const feeds: Record<string, ort.Tensor> = {};
        for (const [name, tensor] of Object.entries(request.feeds)) {
          feeds[name] = new ort.Tensor(tensor.type, tensor.data, tensor.dims);
        }
        const started = performance.now();
        const results = request.outputNames
          ? await session.run(feeds, request.outputNames)
          : await session.run(feeds);
        const runMicros = Math.round((performance.now() - started) * 1000);
        const outputs: Record<string, SerializedTensor> = {};
        for (const [name, tensor] of Object.entries(results)) {
          outputs[name] = { type: tensor.type, data: tensor.data, dims: [...tensor.dims] };
        }
        // The binding copies each output into a fresh ArrayBuffer: hand it over instead of cloning it.
        reply({ type: 'result', id: request.id, outputs, runMicros }, [
          ...transferableBuffers(Object.values(outputs)),
        ]);
      } catch (error) {
        reply({ type: 'failed', id: request.id, message: messageOf(error) });
      }
      return;
    case 'encode':
      try {
        const started = performance.now();
        const { data, dims } = await encodeImages({
          data: request.pixels.data as Float32Array,
          dims: request.pixels.dims,
        });
        const runMicros = Math.round((performance.now() - started) * 1000);
        const outputs = {
          [LAST_HIDDEN_STATE]: { type: 'float32' as const, data: data as Float32Array, dims: [...dims] },
        };
        reply({ type: 'result', id: request.id, outputs, runMicros }, [
          ...transferableBuffers(Object.values(outputs)),
        ]);
      } catch (error) {
        reply({ type: 'failed', id: request.id, message: messageOf(error) });
      }
      return;
    case 'generate':
      handleGeneration(request.command);
      return;
    case 'crash':
      process.exit(70);
      return;
    case 'release':
      await session?.release().catch(() => undefined);
      await encoder?.release().catch(() => undefined);
      session = undefined;
      encoder = undefined;
      reply({ type: 'released' });
      return;
  }
}

/** The generation loop runs here, next to the session: each step is one `runDecoderStep`. */
function handleGeneration(command: GenerationCommand): void {
  if (command.type === 'start') {
    const model = encoder ? { step: runDecoderStep, encode: encodeImages } : { step: runDecoderStep };
    generation = new GenerationLoop(
      command.layout,
      command.limits,
      model,
      (events) => reply({ type: 'generation', events }),
      Date.now,
      command.chunking,
    );
    return;
  }
  if (generation) generation.handle(command);
  else if (command.type === 'add') {
    const message = 'the generation loop was not started (not a text-generation or image-to-text model)';
    reply({ type: 'generation', events: [{ type: 'ended', seq: command.seq, reason: 'failed', message }] });
  }
}

const RUNTIME_TYPE = { INT64: 'int64', FP32: 'float32', BOOL: 'bool' } as const;

const runDecoderStep: RunStep = async (feeds) => {
  if (!session) throw new Error('the session is not open');
  const tensors: Record<string, ort.Tensor> = {};
  for (const [name, tensor] of Object.entries(feeds)) {
    const type = RUNTIME_TYPE[tensor.datatype as keyof typeof RUNTIME_TYPE];
    tensors[name] = new ort.Tensor(type, tensor.data, tensor.dims);
  }
  const results = await session.run(tensors);
  const outputs: StepOutputs = {};
  for (const [name, tensor] of Object.entries(results))
    outputs[name] = { dims: tensor.dims, data: tensor.data };
  return outputs;
};

/** One run of the image encoder on stacked images [n, C, H, W]: its last_hidden_state [n, S, H]. */
const encodeImages: EncodeImages = async (pixels) => {
  if (!encoder) throw new Error('the image encoder is not open');
  const feeds = { [PIXEL_VALUES]: new ort.Tensor('float32', pixels.data, pixels.dims) };
  const results = await encoder.run(feeds, [LAST_HIDDEN_STATE]);
  const states = results[LAST_HIDDEN_STATE];
  if (!states) throw new Error(`the image encoder gave no '${LAST_HIDDEN_STATE}'`);
  return { dims: states.dims, data: states.data };
};
