/**
 * A canned Open Inference Protocol server for bench/wake-gap.ts: grpc-js with modelgate's proto,
 * no model. Each ModelInfer answers a two-float `logits` after `id` milliseconds of busy work,
 * done on the event loop itself (model name `inline`) or on a worker thread the event loop waits
 * for (`thread`, as the worker's session thread is waited for). With `http2Port` the same answers
 * also come from a bare node:http2 server (no grpc-js: headers, the one DATA frame and the trailers
 * written at once), the floor any gRPC server in Node could reach.
 */
import http2 from 'node:http2';
import { Worker } from 'node:worker_threads';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { INFERENCE_PROTO_PATH, INFERENCE_SERVICE_NAME } from '@modelgate/contracts';
import { mark, readChildConfig } from '../child-process.js';

/** Settings from the parent. */
export interface CannedInferServerConfig {
  port: number;
  /** Also listen with a bare node:http2 server here (path and messages as ModelInfer's). */
  http2Port?: number;
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
const bound = new Promise<void>((resolve, reject) =>
  server.bindAsync(`127.0.0.1:${config.port}`, grpc.ServerCredentials.createInsecure(), (error) =>
    error ? reject(error) : resolve(),
  ),
);

/** The bare HTTP/2 server: one length-prefixed message in, the canned one out with status 0. */
function serveBareHttp2(port: number): Promise<void> {
  type Codec = {
    requestDeserialize(bytes: Buffer): { model_name: string; id: string };
    responseSerialize(message: unknown): Buffer;
  };
  const codec = (service as unknown as Record<string, Codec>).ModelInfer!;
  const body = codec.responseSerialize(answer);
  const frame = Buffer.alloc(5 + body.length);
  frame.writeUInt32BE(body.length, 1);
  body.copy(frame, 5);
  const bare = http2.createServer();
  bare.on('stream', (stream) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const request = codec.requestDeserialize(Buffer.concat(chunks).subarray(5));
      const respond = () => {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(frame);
      };
      const ms = Number(request.id) || 0;
      if (request.model_name === 'thread' && ms > 0) {
        waiting.push(respond);
        spinner.postMessage(ms);
        return;
      }
      spin(ms);
      respond();
    });
  });
  return new Promise((resolve) => bare.listen(port, '127.0.0.1', resolve));
}

await Promise.all([bound, config.http2Port === undefined ? undefined : serveBareHttp2(config.http2Port)]);
mark('ready');
