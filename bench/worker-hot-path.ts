/**
 * `npx tsx bench/worker-hot-path.ts [concurrency] [requests] [cancel-source|abort-controller]`: the CPU the worker's own code spends
 * per ModelInfer call, hot, without the transport or the model: the request's protobuf decode,
 * decodeInferRequest, the runner (split into rows, the dynamic batcher, packing, the session pool),
 * a session that answers at once (one event-loop turn later), the outputs cut and joined back, and
 * the response's encode — with the cancellation a call carries, as InferenceController does it.
 * `concurrency` calls run at once (batches form, as under load); prints µs of wall time and of CPU
 * per call for three rounds after a warm-up. `abort-controller` gives each call Node's
 * AbortController instead of the worker's CancelSource, to see what the first costs. A microbenchmark: compare two builds on the same
 * machine, alternated, never with figures from another machine.
 */
import * as protoLoader from '@grpc/proto-loader';
import { CancelSource, resolveBatchLimits } from '@modelgate/batching';
import {
  INFERENCE_PROTO_PATH,
  INFERENCE_SERVICE_NAME,
  type TensorDatatype,
  encodeTensor,
  OIP_SERVER_LOADER_OPTIONS,
} from '@modelgate/contracts';
import { tokenInferRequest, tokenRows } from '@modelgate/testing';
import { type OnnxSession, type SessionRun } from '../apps/worker/src/model-loading/session-types.js';
import { decodeInferRequest } from '../apps/worker/src/serving/decode-infer-request.js';
import { type OipInferRequest as ModelInferRequestMessage } from '@modelgate/contracts';
import { ModelRunner } from '../apps/worker/src/serving/model-runner.js';

const CONCURRENCY = Number(process.argv[2] ?? 8);
const REQUESTS = Number(process.argv[3] ?? 20_000);
const CANCELLATION = process.argv[4] ?? 'cancel-source';
if (CANCELLATION !== 'cancel-source' && CANCELLATION !== 'abort-controller') {
  throw new Error(`cancellation must be cancel-source or abort-controller, not ${CANCELLATION}`);
}

type Codec = {
  requestSerialize(message: unknown): Buffer;
  requestDeserialize(bytes: Buffer): ModelInferRequestMessage;
  responseSerialize(message: unknown): Buffer;
};
// The worker's own proto loader options.
const definition = protoLoader.loadSync(INFERENCE_PROTO_PATH, OIP_SERVER_LOADER_OPTIONS);
const service = definition[INFERENCE_SERVICE_NAME] as unknown as Record<string, Codec>;
const codec = service.ModelInfer!;

const inputs = ['input_ids', 'attention_mask', 'token_type_ids'].map((name) => ({
  name,
  datatype: 'INT64',
  dims: [-1, -1],
}));
const outputs = [{ name: 'logits', datatype: 'FP32', dims: [-1, 2] }];
const session = (): OnnxSession => ({
  inputs,
  outputs,
  spinsWithinRuns: false,
  lostReason: undefined,
  run: (feeds) => {
    const rows = feeds.input_ids?.dims[0] ?? 1;
    const logits = { datatype: 'FP32', dims: [rows, 2], data: new Float32Array(rows * 2) };
    return new Promise<SessionRun>((resolve) =>
      setImmediate(() => resolve({ outputs: { logits }, runMicros: 5 })),
    );
  },
  generate: () => undefined,
  onGeneration: () => undefined,
  crashForTest: () => undefined,
  release: () => Promise.resolve(),
});
const runner = new ModelRunner('bench:1', [session(), session()], resolveBatchLimits({ maxBatchSize: 8 }));
const wire = codec.requestSerialize(
  tokenInferRequest('bench', [tokenRows(1, 17, 19, 19)[0]!], { withTokenTypes: true }),
);

async function oneCall(): Promise<Buffer> {
  const decoded = decodeInferRequest(codec.requestDeserialize(wire), inputs, outputs);
  const cancelled = CANCELLATION === 'cancel-source' ? new CancelSource() : new AbortController();
  const result = await runner.infer(decoded.inputs, decoded.rows, decoded.outputNames, {
    signal: cancelled.signal,
    deadlineEpochMs: Date.now() + 30_000,
  });
  const response = {
    model_name: 'bench',
    model_version: '1',
    id: '',
    parameters: {
      queue_time_us: { int64_param: result.queueMicros },
      compute_time_us: { int64_param: result.computeMicros },
    },
    outputs: [] as { name: string; datatype: string; shape: number[] }[],
    raw_output_contents: [] as Uint8Array[],
  };
  for (const [name, tensor] of Object.entries(result.outputs)) {
    response.outputs.push({ name, datatype: tensor.datatype, shape: tensor.dims });
    response.raw_output_contents.push(
      encodeTensor(tensor.datatype as TensorDatatype, tensor.dims, tensor.data as never, name),
    );
  }
  return codec.responseSerialize(response);
}

async function run(calls: number): Promise<void> {
  let started = 0;
  const client = async () => {
    while (started < calls) {
      started++;
      await oneCall();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
}

await run(5_000);
for (let round = 1; round <= 3; round++) {
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  await run(REQUESTS);
  const cpu = process.cpuUsage(cpuBefore);
  const wallMicros = ((performance.now() - startedAt) * 1000) / REQUESTS;
  process.stdout.write(
    `round ${round}, c=${CONCURRENCY}, ${CANCELLATION}: ${wallMicros.toFixed(1)} µs wall, ${((cpu.user + cpu.system) / REQUESTS).toFixed(1)} µs CPU per call\n`,
  );
}
