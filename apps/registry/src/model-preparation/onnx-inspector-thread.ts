/**
 * Opens a model for preparation on a thread of its own (onnx-inspector.thread.ts), so creating
 * the session and the warm-up run never block the registry's event loop.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type InspectedModel } from './onnx-inspector.js';
import {
  type InspectorReply,
  type InspectorRequest,
  type InspectorThreadData,
} from './onnx-inspector.thread.js';

/** The compiled thread module: beside this one, or in dist/ when running from TypeScript sources (tests). */
function threadModule(): URL {
  const sibling = new URL('./onnx-inspector.thread.js', import.meta.url);
  if (existsSync(fileURLToPath(sibling))) return sibling;
  return new URL('../../dist/model-preparation/onnx-inspector.thread.js', import.meta.url);
}

function asError(reply: Extract<InspectorReply, { type: 'failed' }>): Error {
  return reply.code === undefined
    ? new Error(reply.message)
    : new ModelgateError(reply.code as ErrorCode, reply.message);
}

/** Opens `path` off the event loop; the same contract as `openOnnxModel`. */
export async function openOnnxModelOnThread(
  path: string,
  fileLabel: string,
  options: { holdFile?: string } = {},
): Promise<InspectedModel> {
  const data: InspectorThreadData = {
    path,
    fileLabel,
    ...(options.holdFile ? { holdFile: options.holdFile } : {}),
  };
  const thread = new Worker(threadModule(), { workerData: data });
  let exited: Error | undefined;
  const waiting: ((reply: InspectorReply) => void)[] = [];
  thread.on('message', (reply: InspectorReply) => waiting.shift()?.(reply));
  const lost = (error: Error) => {
    exited = error;
    for (const resolve of waiting.splice(0)) resolve({ type: 'failed', message: error.message });
  };
  thread.on('error', (error) => lost(error));
  thread.on('exit', (code) => lost(new Error(`the preparation thread exited (code ${code})`)));
  const next = (): Promise<InspectorReply> =>
    exited
      ? Promise.resolve({ type: 'failed', message: exited.message })
      : new Promise((resolve) => waiting.push(resolve));
  const ask = (request: InspectorRequest): Promise<InspectorReply> => {
    const reply = next();
    thread.postMessage(request);
    return reply;
  };

  const opened = await next();
  if (opened.type !== 'opened') {
    await thread.terminate();
    throw opened.type === 'failed'
      ? asError(opened)
      : new ModelgateError(ErrorCode.INTERNAL, 'the preparation thread answered out of turn');
  }
  return {
    inputs: opened.inputs,
    outputs: opened.outputs,
    nonTensors: opened.nonTensors,
    async warmUp(image?: readonly number[]) {
      const reply = await ask({ type: 'warmUp', ...(image ? { image: [...image] } : {}) });
      if (reply.type === 'failed') throw asError(reply);
      return reply.type === 'warmedUp' ? reply.ms : undefined;
    },
    async release() {
      await ask({ type: 'release' });
      await thread.terminate();
    },
  };
}
