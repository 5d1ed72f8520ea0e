// Property-based fuzzing of the gateway's public gRPC face (GATEWAY_GRPC_PORT) over real gRPC, a
// real gateway process and a real worker process: ModelInfer and ModelStreamInfer with hostile
// requests (support/hostile-oip-requests.ts) and hostile metadata, streams cancelled midway,
// ModelMetadata and ModelReady for any name, the probes, and a message past the size limit.
// Every call must end with a status of the error table, never one of gRPC's server faults
// (INTERNAL, UNKNOWN, DATA_LOSS), with a readable message; and the gateway must go on answering.
import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import fc from 'fast-check';
import {
  type RunningGateway,
  type RunningWorker,
  freePort,
  rawBytes,
  startServingPair,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GrpcOutcome,
  RawGrpcClient,
  type StreamEnding,
  decodeMessage,
  encodeMessage,
  inferRequestOfBytes,
  outcomeProblem,
  streamAnswers,
} from './support/grpc-fuzz-client.js';
import { sampleImages } from './support/hostile-images.js';
import { hostileString, sometimes } from './support/hostile-inputs.js';
import { type OipTarget, hostileMetadata, inferRequests, wireBytes } from './support/hostile-oip-requests.js';

/** Calls each property makes at once. */
const BATCH = 8;
/** One seed for every property, so a failure reproduces; MODELGATE_FUZZ_SEED explores another. */
const SEED = Number(process.env.MODELGATE_FUZZ_SEED ?? 20261207);
/** The gateway's limit on a received message (gateway-grpc.ts). */
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/** What a refused inference call may end with: the error table's client statuses. */
const INFER_REFUSALS = new Set([
  GrpcStatus.INVALID_ARGUMENT,
  GrpcStatus.NOT_FOUND,
  GrpcStatus.RESOURCE_EXHAUSTED,
  GrpcStatus.DEADLINE_EXCEEDED,
]);

const primary = (model: string) => [{ model: `${model}:1`, weight: 100, role: 'primary' }];

describe('gateway: fuzzing the public gRPC face', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let client: RawGrpcClient;
  let targets: OipTarget[];
  let images: Buffer[];
  const calls = new Map<string, number>();
  const statuses = new Map<string, number>();

  beforeAll(async () => {
    images = await sampleImages();
    const grpcPort = await freePort();
    ({ worker, gateway } = await startServingPair(
      [
        { name: 'bert', fixture: 'tiny-bert-sst2' },
        { name: 'gpt', fixture: 'tiny-gpt2', task: 'text-generation' },
        { name: 'vit', fixture: 'tiny-vit', task: 'image-classification' },
        { name: 'rerank', fixture: 'tiny-bert-reranker', task: 'text-ranking' },
        { name: 'tensors', fixture: 'tiny-bert-sst2', task: 'raw' },
      ],
      {
        endpoints: [
          { name: 'sentiment', task: 'text-classification', routes: primary('bert') },
          // Short generations: the fuzzing is about inputs.
          {
            name: 'writer',
            task: 'text-generation',
            routes: primary('gpt'),
            generation: { max_new_tokens: 4 },
          },
          {
            name: 'vision',
            task: 'image-classification',
            routes: primary('vit'),
            preprocessing: { maxImageBytes: 64 * 1024, maxImagePixels: 1_000_000 },
          },
          { name: 'ranker', task: 'text-ranking', routes: primary('rerank') },
          { name: 'raw', task: 'raw', routes: primary('tensors') },
        ],
        gatewayEnv: { GATEWAY_GRPC_PORT: String(grpcPort) },
      },
    ));
    client = new RawGrpcClient(`127.0.0.1:${grpcPort}`);
    // What each endpoint and model takes, as a client learns it: its ModelMetadata.
    targets = await Promise.all(
      ['sentiment', 'writer', 'vision', 'ranker', 'tensors'].map(async (name) => {
        const outcome = await client.unary(
          'ModelMetadata',
          encodeMessage('ModelMetadataRequest', { name }),
          new Metadata(),
        );
        expect(outcome.code).toBe(GrpcStatus.OK);
        const metadata = decodeMessage('ModelMetadataResponse', outcome.messages[0]!) as {
          inputs: { name: string; datatype: string; shape: string[] }[];
          outputs: { name: string; datatype: string; shape: string[] }[];
        };
        const tensors = (list: typeof metadata.inputs) =>
          list.map((tensor) => ({ ...tensor, shape: tensor.shape.map(Number) }));
        return { name, inputs: tensors(metadata.inputs), outputs: tensors(metadata.outputs ?? []) };
      }),
    );
  });

  afterAll(async () => {
    client?.close();
    await gateway?.stop();
    await worker?.stop();
  });

  /** Counts how `method` ended and throws (failing the property) when it ended wrong. */
  function judge(
    method: string,
    outcome: GrpcOutcome,
    expect: Parameters<typeof outcomeProblem>[1],
    what: string,
  ): void {
    calls.set(method, (calls.get(method) ?? 0) + 1);
    const name = GrpcStatus[outcome.code] ?? String(outcome.code);
    statuses.set(name, (statuses.get(name) ?? 0) + 1);
    const problem = outcomeProblem(outcome, expect);
    if (problem !== undefined) throw new Error(`${method} ${what.slice(0, 400)} ${problem}`);
  }

  /** A well-formed call still answers: the face is live and serves a classification. */
  async function servesStill(): Promise<void> {
    const live = await client.unary('ServerLive', new Uint8Array(), new Metadata());
    expect(live.code).toBe(GrpcStatus.OK);
    const good = {
      model_name: 'sentiment',
      inputs: [{ name: 'text', datatype: 'BYTES', shape: [1] }],
      raw_input_contents: [rawBytes(['a fine film'])],
    };
    const answer = await client.unary('ModelInfer', encodeMessage('ModelInferRequest', good), new Metadata());
    expect(answer.code, answer.details).toBe(GrpcStatus.OK);
  }

  const described = (bytes: Uint8Array) =>
    `(${bytes.length} bytes) ${Buffer.from(bytes.subarray(0, 300)).toString('latin1')}`;

  it('answers hostile ModelInfer calls with statuses of the error table and readable messages', async () => {
    const call = fc.record({
      bytes: wireBytes('ModelInferRequest', inferRequests(targets, images)),
      metadata: hostileMetadata,
      deadlineMs: sometimes(fc.integer({ min: 1, max: 50 }), 12),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        await Promise.all(
          batch.map(async ({ bytes, metadata, deadlineMs }) => {
            const outcome = await client.unary('ModelInfer', bytes, metadata, deadlineMs);
            judge('ModelInfer', outcome, { refusable: INFER_REFUSALS }, described(bytes));
          }),
        );
      }),
      { numRuns: 250, seed: SEED },
    );
    await servesStill();
  });

  it('answers hostile ModelStreamInfer streams, half-closed or cancelled midway, request by request', async () => {
    const writer = targets.find((target) => target.name === 'writer')!;
    // Generations half the time: the streamed deltas are what a cancellation cuts.
    const request = wireBytes(
      'ModelInferRequest',
      fc.oneof(inferRequests([writer], images), inferRequests(targets, images)),
    );
    const ending: fc.Arbitrary<StreamEnding> = fc.oneof(
      { arbitrary: fc.constant({ type: 'half-close' as const }), weight: 3 },
      {
        arbitrary: fc.nat(3).map((afterMessages) => ({ type: 'cancel' as const, afterMessages })),
        weight: 2,
      },
    );
    const stream = fc.record({
      requests: fc.array(request, { minLength: 1, maxLength: 4 }),
      metadata: hostileMetadata,
      ending,
    });
    await fc.assert(
      fc.asyncProperty(fc.array(stream, { minLength: BATCH / 2, maxLength: BATCH / 2 }), async (batch) => {
        await Promise.all(
          batch.map(async ({ requests, metadata, ending }) => {
            const outcome = await client.stream('ModelStreamInfer', requests, metadata, ending);
            const what = `${JSON.stringify(ending)} ${requests.map(described).join(' | ')}`;
            judge(
              'ModelStreamInfer',
              outcome,
              { cancelled: ending.type === 'cancel', refusable: INFER_REFUSALS },
              what,
            );
            const { answered, problem } = streamAnswers(outcome);
            if (problem !== undefined)
              throw new Error(`ModelStreamInfer ${what.slice(0, 400)} answered ${problem}`);
            // A stream the server ended well (not cancelled first) answered every request.
            if (outcome.code === GrpcStatus.OK) expect(answered, what).toBe(requests.length);
          }),
        );
      }),
      { numRuns: 100, seed: SEED },
    );
    await servesStill();
  });

  it('answers ModelMetadata, ModelReady and the probes for any name, version or bytes', async () => {
    const names = targets.map((target) => target.name);
    const named = fc.record(
      {
        name: fc.oneof(fc.constantFrom(...names, 'bert', 'gpt', 'nope', ''), hostileString),
        version: fc.oneof(fc.constantFrom('', '1', '2', '-1'), hostileString),
      },
      { requiredKeys: [] },
    );
    const probe = fc.oneof(
      fc.record({
        method: fc.constantFrom('ModelMetadata', 'ModelReady'),
        bytes: wireBytes('ModelReadyRequest', named),
      }),
      fc.record({
        method: fc.constantFrom('ServerLive', 'ServerReady', 'ServerMetadata'),
        bytes: fc.oneof(fc.constant(new Uint8Array()), fc.uint8Array({ maxLength: 64 })),
      }),
    );
    const call = fc.record({ probe, metadata: hostileMetadata });
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        await Promise.all(
          batch.map(async ({ probe: { method, bytes }, metadata }) => {
            const outcome = await client.unary(method, bytes, metadata);
            judge(
              method,
              outcome,
              { refusable: new Set([GrpcStatus.INVALID_ARGUMENT, GrpcStatus.NOT_FOUND]) },
              described(bytes),
            );
          }),
        );
      }),
      { numRuns: 100, seed: SEED },
    );
    await servesStill();
  });

  it('refuses a message past its size limit with RESOURCE_EXHAUSTED, on ModelInfer and in a stream', async () => {
    const huge = inferRequestOfBytes(MAX_MESSAGE_BYTES + 1);
    const unary = await client.unary('ModelInfer', huge, new Metadata());
    judge(
      'ModelInfer',
      unary,
      { refusable: new Set([GrpcStatus.RESOURCE_EXHAUSTED]) },
      'a message past the limit',
    );
    expect(unary.code).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    const streamed = await client.stream('ModelStreamInfer', [huge], new Metadata(), { type: 'half-close' });
    judge(
      'ModelStreamInfer',
      streamed,
      { refusable: new Set([GrpcStatus.RESOURCE_EXHAUSTED]) },
      'a message past the limit',
    );
    expect(streamed.code).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    await servesStill();
  });

  it('made thousands of calls, served some, and the gateway and worker are still up with no error logged', async () => {
    const total = [...calls.values()].reduce((a, b) => a + b, 0);
    console.info(`fuzzed gRPC calls by method: ${JSON.stringify(Object.fromEntries(calls))}, total ${total}`);
    console.info(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
    expect(total).toBeGreaterThanOrEqual(3_000);
    expect(statuses.get('OK') ?? 0).toBeGreaterThan(0);
    await servesStill();
    // Unknown errors are logged at level error (pino's 50) with their stack: there must be none.
    const errorLines = (output: string) =>
      output.split('\n').filter((line) => /"level":(50|60)\b/.test(line));
    expect(errorLines(gateway.process.output())).toEqual([]);
    expect(errorLines(worker.process.output())).toEqual([]);
    expect(gateway.process.child.exitCode).toBeNull();
    expect(worker.process.child.exitCode).toBeNull();
  });
});
