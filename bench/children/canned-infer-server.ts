/**
 * A canned Open Inference Protocol server for bench/wake-gap.ts: grpc-js with modelgate's proto,
 * no model. Each ModelInfer answers a two-float `logits` after `id` milliseconds of busy work,
 * done on the event loop itself (model name `inline`) or on a worker thread the event loop waits
 * for (`thread`, as the worker's session thread is waited for).
 */
import { Worker } from 'node:worker_threads';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { INFERENCE_PROTO_PATH, INFERENCE_SERVICE_NAME } from '@modelgate/contracts';
import { mark, readChildConfig } from '../child-process.js';

/** Settings from the parent. */
export interface CannedInferServerConfig {
  port: number;
}

const config = readChildConfig<CannedInferServerConfig>();
const definition = protoLoader.loadSync(INFERENCE_PROTO_PATH, {
  keepCase: true,
  longs: Number,
  defaults: true,
});
const service = definition[INFERENCE_SERVICE_NAME] as grpc.ServiceDefinition;
const answer = {
  model_name: 'canned',
  outputs: [{ name: 'logits', datatype: 'FP32', shape: [1, 2] }],
  raw_output_contents: [Buffer.alloc(8)],
};

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

const spinner = new Worker(
  `const { parentPort } = require('node:worker_threads');
   parentPort.on('message', (ms) => { const end = performance.now() + ms; while (performance.now() < end); parentPort.postMessage(ms); });`,
  { eval: true },
);
const waiting: (() => void)[] = [];
spinner.on('message', () => waiting.shift()?.());

type Call = grpc.ServerUnaryCall<{ model_name: string; id: string }, typeof answer>;
const server = new grpc.Server();
server.addService(service, {
  ModelInfer: (call: Call, callback: grpc.sendUnaryData<typeof answer>) => {
    const ms = Number(call.request.id) || 0;
    if (call.request.model_name === 'thread' && ms > 0) {
      waiting.push(() => callback(null, answer));
      spinner.postMessage(ms);
      return;
    }
    spin(ms);
    callback(null, answer);
  },
});
server.bindAsync(`127.0.0.1:${config.port}`, grpc.ServerCredentials.createInsecure(), (error) => {
  if (error) throw error;
  mark('ready');
});
