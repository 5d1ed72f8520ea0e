import { DecodeBatch, type StepFeeds } from '../generation/decode-batch.js';
import { type DecoderLayout } from '../generation/decoder-layout.js';
import { type OnnxSession, type TensorDeclaration, type WorkerTensor } from './onnx-session.adapter.js';

/** Sequence length the warm-up request uses for dynamic non-batch dims. */
const WARM_UP_SEQUENCE = 8;

/**
 * One small request shaped like the model's inputs: batch 1, dynamic dims 8 long; token ids
 * start with [CLS]-like 101 and masks are all ones. Returns undefined for inputs it cannot
 * fabricate (strings).
 */
export function warmUpFeeds(inputs: readonly TensorDeclaration[]): Record<string, WorkerTensor> | undefined {
  const feeds: Record<string, WorkerTensor> = {};
  for (const input of inputs) {
    const dims = input.dims.map((dim, axis) => (dim >= 0 ? dim : axis === 0 ? 1 : WARM_UP_SEQUENCE));
    const count = dims.reduce((a, b) => a * b, 1);
    const fill = input.name.includes('mask') ? 1 : input.name === 'input_ids' ? 101 : 0;
    const data = makeArray(input.datatype, count, fill);
    if (!data) return undefined;
    feeds[input.name] = { datatype: input.datatype, dims, data };
  }
  return feeds;
}

function makeArray(datatype: string, count: number, fill: number): WorkerTensor['data'] | undefined {
  switch (datatype) {
    case 'INT64':
      return new BigInt64Array(count).fill(BigInt(fill));
    case 'INT32':
      return new Int32Array(count).fill(fill);
    case 'FP32':
      return new Float32Array(count).fill(fill);
    case 'FP64':
      return new Float64Array(count).fill(fill);
    case 'BOOL':
    case 'UINT8':
      return new Uint8Array(count).fill(fill ? 1 : 0);
    default:
      return undefined;
  }
}

/** Runs the warm-up request once per session; returns the slowest run in ms. */
export async function warmUp(sessions: readonly OnnxSession[]): Promise<number> {
  let slowest = 0;
  for (const session of sessions) {
    const feeds = warmUpFeeds(session.inputs);
    if (!feeds) continue;
    const started = performance.now();
    await session.run(feeds);
    slowest = Math.max(slowest, performance.now() - started);
  }
  return slowest;
}

/**
 * Warms a decoder's sessions up the way generation runs them: a one-token prefill (cache inputs
 * with past_sequence 0), then one decode step on its cache. Returns the slowest session in ms.
 */
export async function warmUpDecoder(
  sessions: readonly OnnxSession[],
  layout: DecoderLayout,
): Promise<number> {
  let slowest = 0;
  for (const session of sessions) {
    const started = performance.now();
    const batch = new DecodeBatch<number>(
      layout,
      async (feeds: StepFeeds) => (await session.run(feeds)).outputs,
    );
    await batch.prefill([{ id: 0, promptIds: [0] }]);
    await batch.step(new Map([[0, 0]]));
    slowest = Math.max(slowest, performance.now() - started);
  }
  return slowest;
}
