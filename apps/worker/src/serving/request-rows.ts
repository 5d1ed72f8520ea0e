/**
 * A request's tensors as batcher rows and back: split along dim 0 into views (no copy), token rows
 * cut to their real length (their attention mask), and each row's outputs joined back into the
 * request's [rows, ...] tensors, sequence axes padded out to the width the request was sent at.
 */
import {
  type NumericArray,
  type TensorData,
  concatBatch,
  padSequenceAxis,
  realLength,
  sequenceAxisOf,
} from '@modelgate/batching';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type TensorDeclaration, type WorkerTensor } from '../model-loading/onnx-session.adapter.js';

/** One row of a request: its tensors ([1, ...] views) and, for token models, its real length. */
export interface RequestRow {
  inputs: Record<string, TensorData>;
  /** Tokens the row really holds (token models), else 1. */
  tokens: number;
}

/**
 * Splits `inputs` ([rows, ...] each) into rows. With `tokenModel`, each row is cut to the real
 * length its `attention_mask` gives, so padding the client added is never computed.
 */
export function splitRequestRows(
  inputs: Record<string, WorkerTensor>,
  rows: number,
  tokenModel: boolean,
): RequestRow[] {
  const result: RequestRow[] = [];
  const entries = Object.entries(inputs).map(([name, tensor]) => {
    const data = tensor.data as NumericArray;
    return { name, data, rowLength: data.length / rows, rowDims: [1, ...tensor.dims.slice(1)] };
  });
  const mask = tokenModel ? entries.find((entry) => entry.name === 'attention_mask') : undefined;
  for (let row = 0; row < rows; row++) {
    const keep = mask
      ? realLength(mask.data.subarray(row * mask.rowLength, (row + 1) * mask.rowLength))
      : undefined;
    const rowInputs: Record<string, TensorData> = {};
    for (const { name, data, rowLength, rowDims } of entries) {
      const start = row * rowLength;
      rowInputs[name] =
        keep === undefined
          ? { data: data.subarray(start, start + rowLength), dims: rowDims }
          : { data: data.subarray(start, start + keep), dims: [1, keep] };
    }
    result.push({ inputs: rowInputs, tokens: keep ?? 1 });
  }
  return result;
}

/**
 * Joins the rows' outputs into the request's tensors: `names` in order (all declared outputs when
 * undefined), a sequence axis padded back to `width` (the request's own sequence length).
 */
export function joinRowOutputs(
  rows: readonly Record<string, TensorData>[],
  names: readonly string[] | undefined,
  declared: readonly TensorDeclaration[],
  width: number | undefined,
): Record<string, WorkerTensor> {
  const result: Record<string, WorkerTensor> = {};
  for (const name of names ?? declared.map((d) => d.name)) {
    const declaration = declared.find((d) => d.name === name);
    const axis = declaration ? sequenceAxisOf(declaration.dims) : undefined;
    const parts = rows.map((row) => {
      const tensor = requireOutput(row, name);
      return axis !== undefined && width !== undefined ? padSequenceAxis(tensor, axis, width, name) : tensor;
    });
    const only = parts.length === 1 ? parts[0] : undefined;
    const tensor = only ?? concatBatch(parts.map((part) => ({ [name]: part }))).inputs[name];
    if (!tensor) continue;
    result[name] = {
      datatype: declaration?.datatype ?? 'FP32',
      dims: [...tensor.dims],
      data: tensor.data as WorkerTensor['data'],
    };
  }
  return result;
}

function requireOutput(row: Record<string, TensorData>, name: string): TensorData {
  const tensor = row[name];
  if (!tensor) throw new ModelgateError(ErrorCode.INTERNAL, `output '${name}' missing from a batch result`);
  return tensor;
}
