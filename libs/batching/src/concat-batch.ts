/**
 * The fallback for models whose inputs are not [1, seq] int64 sequences (images, fixed-size
 * features, ...): requests are stacked along dim 0, which needs every non-batch dim and dtype to
 * match. Give such requests `batchKey: batchSignature(inputs)` when enqueuing so that only
 * stackable requests ever share a batch.
 */
import {
  type BatchLayout,
  type NumericArray,
  type RequestRows,
  type TensorData,
  allocLike,
  checkTensor,
  copyInto,
  invalidTensor,
} from './batch-layout.js';

/** One request's inputs by name, each [rows, ...] with the same rows across its inputs. */
export type TensorInputs<T extends NumericArray = NumericArray> = Readonly<Record<string, TensorData<T>>>;

/** The stacked batch: one tensor per input name, plus the layout for `splitBatchOutput`. */
export interface ConcatenatedBatch<T extends NumericArray = NumericArray> {
  readonly inputs: Readonly<Record<string, TensorData<T>>>;
  readonly batch: number;
  readonly layout: BatchLayout;
}

/**
 * What must match for two requests to stack: input names, dtypes and non-batch dims. Equal
 * signatures concatenate; use it as the batcher's `batchKey`.
 */
export function batchSignature(inputs: TensorInputs): string {
  return Object.keys(inputs)
    .sort()
    .map((name) => {
      const tensor = inputs[name];
      const dtype = tensor?.data.constructor.name ?? '?';
      return `${name}:${dtype}[${tensor?.dims.slice(1).join(',') ?? ''}]`;
    })
    .join(';');
}

/**
 * Concatenates the requests' tensors along dim 0. Throws INVALID_ARGUMENT (naming the input)
 * when their signatures differ or a request's inputs disagree on rows.
 */
export function concatBatch<T extends NumericArray>(
  requests: readonly TensorInputs<T>[],
): ConcatenatedBatch<T> {
  const first = requests[0];
  if (first === undefined) throw invalidTensor('inputs', 'cannot concatenate an empty batch');
  const signature = batchSignature(first);
  const names = Object.keys(first).sort();

  const requestRows: RequestRows[] = [];
  let batch = 0;
  requests.forEach((request, index) => {
    const other = batchSignature(request);
    if (other !== signature) {
      throw invalidTensor('inputs', `request ${index} does not stack: ${other} vs ${signature}`);
    }
    let rows: number | undefined;
    for (const name of names) {
      const tensor = request[name];
      if (tensor === undefined) continue;
      checkTensor(name, tensor.data, tensor.dims);
      if (rows !== undefined && tensor.dims[0] !== rows) {
        throw invalidTensor(
          name,
          `${name} has ${tensor.dims[0]} rows, request ${index}'s other inputs ${rows}`,
        );
      }
      rows = tensor.dims[0] ?? 0;
    }
    requestRows.push({ firstRow: batch, rows: rows ?? 0 });
    batch += rows ?? 0;
  });

  const inputs: Record<string, TensorData<T>> = {};
  for (const name of names) {
    const template = first[name];
    if (template === undefined) continue;
    const total = requests.reduce((sum, request) => sum + (request[name]?.data.length ?? 0), 0);
    const data = allocLike(template.data, total);
    let offset = 0;
    for (const request of requests) {
      const source = request[name]?.data;
      if (source === undefined) continue;
      copyInto(data, source, offset);
      offset += source.length;
    }
    inputs[name] = { data, dims: [batch, ...template.dims.slice(1)] };
  }
  return { inputs, batch, layout: { batch, requests: requestRows } };
}
