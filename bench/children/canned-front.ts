/**
 * A canned HTTP front for bench/wake-gap.ts: what a gateway is, minus modelgate's work. A Fastify
 * route (JSON body, as the gateway parses one) forwards each POST as one ModelInfer to the canned
 * gRPC server (children/canned-infer-server.ts) through modelgate's gRPC client, and answers a
 * small JSON body. No tokenizer, routing, metrics or post-processing: with the canned server behind
 * it, an HTTP call at concurrency 1 costs what the two hops of modelgate's path cost on this
 * machine at least, however little each side does.
 */
import Fastify from 'fastify';
import { GrpcWorkerChannel, encodeInferRequest } from '@modelgate/inference-client';
import { mark, readChildConfig } from '../child-process.js';

/** Settings from the parent. */
export interface CannedFrontConfig {
  /** HTTP port to listen on. */
  port: number;
  /** host:port of the canned gRPC server. */
  grpcAddress: string;
}

/** The body the front takes: how long the canned server works, and where (its model name). */
export interface CannedFrontBody {
  mode: 'inline' | 'thread';
  workMs: number;
}

const config = readChildConfig<CannedFrontConfig>();
const channel = new GrpcWorkerChannel(config.grpcAddress);
const ids = new BigInt64Array(19).fill(101n);

const app = Fastify();
app.post('/forward', async (request) => {
  const body = request.body as CannedFrontBody;
  await channel.modelInfer(
    encodeInferRequest({
      modelName: body.mode,
      id: String(body.workMs),
      inputs: [{ name: 'input_ids', datatype: 'INT64', dims: [1, ids.length], data: ids }],
    }),
    { deadlineEpochMs: Date.now() + 10_000 },
  );
  return { answered: true };
});
await app.listen({ port: config.port, host: '127.0.0.1' });
mark('ready');
