/**
 * Packs requests whose inputs are all int64 [rows, seq] tensors (input_ids, attention_mask,
 * token_type_ids, ... of a Hugging Face export) into one [batch, longest] tensor per input name,
 * right-padded. Right padding keeps every real token at its own position, so with the attention
 * mask at 0 on padding a transformer's output at real positions is what it is unbatched.
 */
import { type BatchLayout, type RequestRows, checkTensor, invalidTensor } from './batch-layout.js';

/** Token ids (or mask / type ids) as the tokenizer or the wire gives them. */
export type TokenIds = BigInt64Array | Int32Array | Uint32Array | readonly number[] | readonly bigint[];

/** A [rows, seq] int tensor; a bare {@link TokenIds} is taken as [1, length]. */
export interface TokenTensor {
  readonly data: TokenIds;
  readonly dims: readonly number[];
}

/** One request's inputs by name, every one of shape [rows, seq] (the same within a request). */
export type SequenceInputs = Readonly<Record<string, TokenIds | TokenTensor>>;

/** Options of {@link packTokenBatch}. */
export interface PackTokenBatchOptions {
  /**
   * The value padding positions get, per input name (e.g. `{ input_ids: 1 }` for RoBERTa's pad
   * id). Masks and type ids pad with 0.
   * @defaultValue 0 for every input
   */
  readonly padValues?: Readonly<Record<string, number | bigint>>;
}

/** The packed batch: int64 inputs of dims [batch, sequenceLength], ready for ORT tensors. */
export interface PackedTokenBatch {
  /** One int64 tensor's data per input name, row-major [batch, sequenceLength]. */
  readonly inputs: Readonly<Record<string, BigInt64Array>>;
  /** [batch, sequenceLength]. */
  readonly dims: readonly [number, number];
  /** Rows: the sum of the requests' rows. */
  readonly batch: number;
  /** The longest request's sequence length; every row is padded to it. */
  readonly sequenceLength: number;
  /** Where each request sits, for `splitBatchOutput`. */
  readonly layout: BatchLayout;
}

/**
 * Right-pads and stacks the requests' [rows, seq] inputs into [Σrows, longest seq] int64
 * tensors. Every request must have the same input names. Throws INVALID_ARGUMENT (naming the
 * input) when a request's inputs disagree in shape or hold a non-integer.
 */
export function packTokenBatch(
  requests: readonly SequenceInputs[],
  options: PackTokenBatchOptions = {},
): PackedTokenBatch {
  const first = requests[0];
  if (first === undefined) throw invalidTensor('inputs', 'cannot pack an empty batch');
  const names = Object.keys(first).sort();
  if (names.length === 0) throw invalidTensor('inputs', 'a request has no inputs');

  const shapes = requests.map((request, index) => shapeOfRequest(request, names, index));
  const batch = shapes.reduce((sum, shape) => sum + shape.rows, 0);
  const sequenceLength = shapes.reduce((longest, shape) => Math.max(longest, shape.seq), 0);
  const requestRows: RequestRows[] = [];
  let nextRow = 0;
  for (const shape of shapes) {
    requestRows.push({ firstRow: nextRow, rows: shape.rows, sequenceLength: shape.seq });
    nextRow += shape.rows;
  }

  const inputs: Record<string, BigInt64Array> = {};
  for (const name of names) {
    const packed = new BigInt64Array(batch * sequenceLength);
    const pad = BigInt(options.padValues?.[name] ?? 0);
    if (pad !== 0n) packed.fill(pad);
    requests.forEach((request, index) => {
      const { rows, seq } = shapes[index] ?? { rows: 0, seq: 0 };
      const firstRow = requestRows[index]?.firstRow ?? 0;
      const data = dataOf(request[name]);
      for (let row = 0; row < rows; row++) {
        writeRow(packed, (firstRow + row) * sequenceLength, data, row * seq, seq, name);
      }
    });
    inputs[name] = packed;
  }
  return {
    inputs,
    dims: [batch, sequenceLength],
    batch,
    sequenceLength,
    layout: { batch, sequenceLength, requests: requestRows },
  };
}

function shapeOfRequest(
  request: SequenceInputs,
  names: readonly string[],
  index: number,
): { rows: number; seq: number } {
  const own = Object.keys(request);
  if (own.length !== names.length || !names.every((name) => name in request)) {
    throw invalidTensor(
      'inputs',
      `request ${index} has inputs [${own.sort().join(', ')}], not [${names.join(', ')}]`,
    );
  }
  let shape: { rows: number; seq: number } | undefined;
  for (const name of names) {
    const value = request[name];
    const data = dataOf(value);
    const dims = value !== undefined && 'dims' in value ? value.dims : [1, data.length];
    checkTensor(name, data, dims);
    const [rows, seq] = dims;
    if (dims.length !== 2 || rows === undefined || seq === undefined) {
      throw invalidTensor(name, `${name} must be [rows, seq], got [${dims.join(', ')}]`);
    }
    if (shape !== undefined && (shape.rows !== rows || shape.seq !== seq)) {
      throw invalidTensor(
        name,
        `${name} is [${rows}, ${seq}] but request ${index}'s other inputs are [${shape.rows}, ${shape.seq}]`,
      );
    }
    shape = { rows, seq };
  }
  return shape ?? { rows: 0, seq: 0 };
}

function dataOf(value: TokenIds | TokenTensor | undefined): TokenIds {
  if (value === undefined) return [];
  return 'dims' in value ? value.data : value;
}

function writeRow(
  target: BigInt64Array,
  targetOffset: number,
  source: TokenIds,
  sourceOffset: number,
  length: number,
  name: string,
): void {
  if (source instanceof BigInt64Array) {
    target.set(source.subarray(sourceOffset, sourceOffset + length), targetOffset);
    return;
  }
  for (let i = 0; i < length; i++) {
    const value = source[sourceOffset + i] ?? 0;
    if (typeof value === 'number' && !Number.isSafeInteger(value)) {
      throw invalidTensor(name, `${name} holds ${value}, not an integer`);
    }
    target[targetOffset + i] = BigInt(value);
  }
}
