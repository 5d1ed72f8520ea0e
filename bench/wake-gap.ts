/**
 * `npx tsx bench/wake-gap.ts`: what one gRPC round trip costs on this machine when the server's
 * answer takes a while, with no model and no modelgate code in the path. A canned grpc-js server
 * (children/canned-infer-server.ts) answers after G ms of busy work, either on its event loop or on
 * a worker thread its event loop waits for (as modelgate's worker waits for its session thread);
 * modelgate's own client (GrpcWorkerChannel) calls it at concurrency 1. Overhead = p50 − G: with
 * G = 0 it is the transport; with a gap, the threads that idled meanwhile must be woken, and on a
 * virtual machine a wake-up can cost far more than the work it resumes. The raw session.run
 * reference idles nowhere, so this part of the c=1 gap belongs to the machine, not to modelgate.
 * The `bare http2` rows take grpc-js out on both sides (node:http2 client and server, the same
 * messages): what any Node gRPC path would pay at least. The `http → grpc thread` rows add the
 * gateway's hop: an HTTP client (keep-alive, as the bench's load generator) calls a canned Fastify
 * front (children/canned-front.ts) that makes the same gRPC call, so client → front → server →
 * thread and back is modelgate's c=1 path with modelgate's own work taken out: the floor under the
 * c=1 targets on this machine.
 */
import http from 'node:http';
import http2 from 'node:http2';
import { setTimeout as sleep } from 'node:timers/promises';
import * as protoLoader from '@grpc/proto-loader';
import { INFERENCE_PROTO_PATH, INFERENCE_SERVICE_NAME } from '@modelgate/contracts';
import { freePort } from '@modelgate/testing';
import { GrpcWorkerChannel, encodeInferRequest } from '@modelgate/inference-client';
import { childScript, spawnChild } from './child-process.js';
import { type CannedFrontBody, type CannedFrontConfig } from './children/canned-front.js';
import { type CannedInferServerConfig } from './children/canned-infer-server.js';

const GAPS_MS = [0, 1, 2, 4.7];
const MODES = ['inline', 'thread', 'bare http2 thread', 'http → grpc thread'] as const;
const ROUNDS = 3;
const SECONDS = 2;

function p50(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? NaN;
}

async function main(): Promise<void> {
  const port = await freePort();
  const http2Port = await freePort();
  const config: CannedInferServerConfig = { port, http2Port };
  const server = spawnChild(childScript('canned-infer-server.ts'), config);
  await server.marked('ready');
  const channel = new GrpcWorkerChannel(`127.0.0.1:${port}`);
  const ids = new BigInt64Array(19).fill(101n);
  const bare = bareHttp2Caller(http2Port);
  const frontConfig: CannedFrontConfig = { port: await freePort(), grpcAddress: `127.0.0.1:${port}` };
  const front = spawnChild(childScript('canned-front.ts'), frontConfig);
  await front.marked('ready');
  const viaFront = frontCaller(frontConfig.port);
  const call = (mode: string, gapMs: number) => {
    if (mode === 'bare http2 thread') return bare(gapMs, ids);
    if (mode === 'http → grpc thread') return viaFront({ mode: 'thread', workMs: gapMs });
    return channelCall(mode, gapMs);
  };
  const channelCall = (mode: string, gapMs: number) =>
    channel.modelInfer(
      encodeInferRequest({
        modelName: mode,
        id: String(gapMs),
        inputs: [{ name: 'input_ids', datatype: 'INT64', dims: [1, ids.length], data: ids }],
      }),
      { deadlineEpochMs: Date.now() + 10_000 },
    );
  try {
    for (let i = 0; i < 300; i++) {
      await call('inline', 0);
      await viaFront({ mode: 'inline', workMs: 0 });
    }
    const rows = new Map<string, string[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of MODES) {
        for (const gap of GAPS_MS) {
          // With no work the server answers on its event loop: only the inline and two-hop rows show that.
          if ((mode === 'thread' || mode === 'bare http2 thread') && gap === 0) continue;
          const latencies: number[] = [];
          const end = performance.now() + SECONDS * 1000;
          while (performance.now() < end) {
            const started = performance.now();
            await call(mode, gap);
            latencies.push(performance.now() - started);
          }
          const key = `${mode.padEnd(18)} work ${String(gap).padStart(3)} ms`;
          const overhead = p50(latencies) - gap;
          rows.set(key, [...(rows.get(key) ?? []), overhead.toFixed(2)]);
          await sleep(50);
        }
      }
    }
    process.stdout.write(`Round trip at c=1, p50 − work (ms), ${ROUNDS} interleaved rounds\n`);
    for (const [key, values] of rows) process.stdout.write(`  ${key}: ${values.join(', ')}\n`);
  } finally {
    bare.close();
    viaFront.close();
    channel.close();
    await front.stop();
    await server.stop();
  }
}

/**
 * ModelInfer over a bare node:http2 session: the request framed by hand (5-byte prefix), the answer
 * read to its end, trailers included. `call(gapMs, ids)` asks the server's worker thread for
 * `gapMs` of work.
 */
function bareHttp2Caller(port: number) {
  const definition = protoLoader.loadSync(INFERENCE_PROTO_PATH, {
    keepCase: true,
    longs: Number,
    defaults: true,
  });
  type Codec = {
    path: string;
    requestSerialize(message: unknown): Buffer;
    responseDeserialize(bytes: Buffer): unknown;
  };
  const codec = (definition[INFERENCE_SERVICE_NAME] as unknown as Record<string, Codec>).ModelInfer!;
  const session = http2.connect(`http://127.0.0.1:${port}`);
  const call = (gapMs: number, ids: BigInt64Array) =>
    new Promise<void>((resolve, reject) => {
      const body = codec.requestSerialize(
        encodeInferRequest({
          modelName: 'thread',
          id: String(gapMs),
          inputs: [{ name: 'input_ids', datatype: 'INT64', dims: [1, ids.length], data: ids }],
        }),
      );
      const frame = Buffer.alloc(5 + body.length);
      frame.writeUInt32BE(body.length, 1);
      body.copy(frame, 5);
      const stream = session.request({
        ':method': 'POST',
        ':path': codec.path,
        'content-type': 'application/grpc',
        te: 'trailers',
      });
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        codec.responseDeserialize(Buffer.concat(chunks).subarray(5));
        resolve();
      });
      stream.on('error', reject);
      stream.end(frame);
    });
  return Object.assign(call, { close: () => session.close() });
}

/** POST /forward on the canned front over one keep-alive connection, as a load generator at c=1. */
function frontCaller(port: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const call = (body: CannedFrontBody) =>
    new Promise<void>((resolve, reject) => {
      const payload = JSON.stringify(body);
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/forward',
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (response) => {
          response.resume();
          response.on('end', () =>
            response.statusCode === 200
              ? resolve()
              : reject(new Error(`front answered ${response.statusCode}`)),
          );
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  return Object.assign(call, { close: () => agent.destroy() });
}

await main();
