import * as ort from 'onnxruntime-node';
import { decodeTensor, encodeTensor } from '@modelgate/contracts';
import { type Message } from './oip-test-client.js';

/** Deterministic pseudo-random token rows: lengths in [minLength, maxLength], ids in the vocab. */
export function tokenRows(count: number, seed: number, minLength = 3, maxLength = 40): number[][] {
  let state = seed >>> 0;
  const next = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return Array.from({ length: count }, () => {
    const length = minLength + Math.floor(next() * (maxLength - minLength + 1));
    return [101, ...Array.from({ length: length - 2 }, () => 1000 + Math.floor(next() * 29000)), 102];
  });
}

/** A ModelInfer request for equal-length token rows, tensors in raw_input_contents. */
export function tokenInferRequest(
  model: string,
  rows: number[][],
  options: { withTokenTypes?: boolean; id?: string; outputs?: string[] } = {},
): Message {
  const length = rows[0]?.length ?? 0;
  const shape = [rows.length, length];
  const ids = BigInt64Array.from(rows.flat().map(BigInt));
  const mask = new BigInt64Array(ids.length).fill(1n);
  const inputs: Message[] = [
    { name: 'input_ids', datatype: 'INT64', shape },
    { name: 'attention_mask', datatype: 'INT64', shape },
  ];
  const raw = [encodeTensor('INT64', shape, ids), encodeTensor('INT64', shape, mask)];
  if (options.withTokenTypes ?? true) {
    inputs.push({ name: 'token_type_ids', datatype: 'INT64', shape });
    raw.push(encodeTensor('INT64', shape, new BigInt64Array(ids.length)));
  }
  return {
    model_name: model,
    id: options.id ?? '',
    inputs,
    outputs: (options.outputs ?? []).map((name) => ({ name })),
    raw_input_contents: raw.map((bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)),
  };
}

/**
 * A ModelInfer request for token rows of different lengths, right-padded to the longest as a
 * tokenizer pads a batch: ids 0 and attention mask 0 on padding.
 */
export function paddedTokenInferRequest(
  model: string,
  rows: number[][],
  options: { id?: string } = {},
): Message {
  const width = Math.max(...rows.map((row) => row.length));
  const shape = [rows.length, width];
  const ids = new BigInt64Array(rows.length * width);
  const mask = new BigInt64Array(rows.length * width);
  rows.forEach((row, r) =>
    row.forEach((id, i) => {
      ids[r * width + i] = BigInt(id);
      mask[r * width + i] = 1n;
    }),
  );
  const types = new BigInt64Array(ids.length);
  const tensors = [
    ['input_ids', ids],
    ['attention_mask', mask],
    ['token_type_ids', types],
  ] as const;
  return {
    model_name: model,
    id: options.id ?? '',
    inputs: tensors.map(([name]) => ({ name, datatype: 'INT64', shape })),
    outputs: [],
    raw_input_contents: tensors.map(([, data]) => {
      const bytes = encodeTensor('INT64', shape, data);
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }),
  };
}

/** The FP32 output `name` of a ModelInfer response, with its shape. */
export function fp32Output(response: Message, name: string): { shape: number[]; data: Float32Array } {
  const outputs = response.outputs as { name: string; datatype: string; shape: number[] }[];
  const raw = response.raw_output_contents as Uint8Array[];
  const index = outputs.findIndex((o) => o.name === name);
  const output = outputs[index];
  const bytes = raw[index];
  if (!output || !bytes) throw new Error(`no output ${name}`);
  const shape = output.shape.map(Number);
  return { shape, data: decodeTensor('FP32', shape, new Uint8Array(bytes)) };
}

/** Runs each row alone on onnxruntime in this process: the unbatched truth. */
export async function unbatchedOutputs(
  modelPath: string,
  rows: number[][],
  outputName: string,
  withTokenTypes = true,
): Promise<Float32Array[]> {
  const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1 });
  try {
    const results: Float32Array[] = [];
    for (const row of rows) {
      const dims = [1, row.length];
      const feeds: Record<string, ort.Tensor> = {
        input_ids: new ort.Tensor('int64', BigInt64Array.from(row.map(BigInt)), dims),
        attention_mask: new ort.Tensor('int64', new BigInt64Array(row.length).fill(1n), dims),
      };
      if (withTokenTypes) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(row.length), dims);
      const out = await session.run(feeds);
      results.push(out[outputName]?.data as Float32Array);
    }
    return results;
  } finally {
    await session.release();
  }
}

/** Largest absolute difference between two arrays of the same length. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs((a[i] ?? 0) - (b[i] ?? 0)));
  return max;
}
