/**
 * The thread that opens a model for preparation (onnx-inspector-thread.ts starts it): onnxruntime
 * creates and runs sessions synchronously on the thread that calls it, so here they block this
 * thread, never the registry's event loop (admin API, snapshot polls, BullMQ lock renewal).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { isModelgateError } from '@modelgate/contracts';
import { type InspectedModel, openOnnxModel } from './onnx-inspector.js';

/** What the thread is given. */
export interface InspectorThreadData {
  path: string;
  fileLabel: string;
  /**
   * Test hook: block this thread until the file exists, as a slow session creation would;
   * `<file>.held` is written first, so a test knows the thread is blocked.
   */
  holdFile?: string;
}

/** Messages from the thread. */
export type InspectorReply =
  | {
      type: 'opened';
      inputs: InspectedModel['inputs'];
      outputs: InspectedModel['outputs'];
      nonTensors: string[];
    }
  | { type: 'warmedUp'; ms: number | undefined }
  | { type: 'released' }
  | { type: 'failed'; code?: string; message: string };

/** Messages to the thread. */
export type InspectorRequest = { type: 'warmUp'; image?: number[] } | { type: 'release' };

function failure(error: unknown): InspectorReply {
  if (isModelgateError(error)) return { type: 'failed', code: error.code, message: error.message };
  return { type: 'failed', message: error instanceof Error ? error.message : String(error) };
}

function holdUntil(file: string): void {
  writeFileSync(`${file}.held`, '');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (!existsSync(file)) Atomics.wait(pause, 0, 0, 20);
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) return;
  const data = workerData as InspectorThreadData;
  let model: InspectedModel;
  try {
    if (data.holdFile) holdUntil(data.holdFile);
    model = await openOnnxModel(data.path, data.fileLabel);
  } catch (error) {
    port.postMessage(failure(error));
    return;
  }
  port.postMessage({
    type: 'opened',
    inputs: model.inputs,
    outputs: model.outputs,
    nonTensors: model.nonTensors,
  });
  port.on('message', (request: InspectorRequest) => {
    const reply =
      request.type === 'warmUp'
        ? model.warmUp(request.image).then((ms): InspectorReply => ({ type: 'warmedUp', ms }))
        : model.release().then((): InspectorReply => ({ type: 'released' }));
    void reply.catch(failure).then((message) => port.postMessage(message));
  });
}

await main();
