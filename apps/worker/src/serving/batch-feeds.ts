// The feeds of one batch of request rows: rows stacked along dim 0 (a lone row as it is), or token
// rows right-padded to one length; and the outputs the batch must compute.
import { type BatchLayout, type TensorData, concatBatch, packTokenBatch } from '@modelgate/batching';
import { type WorkerTensor } from '../model-loading/onnx-session.adapter.js';

/** One row of a request as the batcher queues it. */
export interface RowItem {
  inputs: Record<string, TensorData>;
  /** OIP datatype per input name (a typed array alone cannot tell BOOL from UINT8). */
  datatypes: Record<string, string>;
  /** Outputs the request asked for; undefined means all. */
  outputNames: readonly string[] | undefined;
  /** Test hook: hold the batch carrying this row this long before running it. */
  holdMs: number;
  /** Test hook: the session thread that runs this row's batch dies first. */
  crashSession: boolean;
  /** When the row was queued (performance.now() ms). */
  enqueuedAtMs: number;
}

/** The outputs a batch must compute: the union of what its requests asked for (undefined: all). */
export function outputsWanted(items: readonly RowItem[]): string[] | undefined {
  const wanted = new Set<string>();
  for (const item of items) {
    if (item.outputNames === undefined) return undefined;
    for (const name of item.outputNames) wanted.add(name);
  }
  return [...wanted];
}

/** Token rows right-padded to the longest into one batch (the mask hides the padding). */
export function packRows(items: readonly RowItem[]) {
  const packed = packTokenBatch(
    items.map((item) => item.inputs as Record<string, { data: BigInt64Array; dims: number[] }>),
  );
  const feeds: Record<string, WorkerTensor> = {};
  for (const [name, data] of Object.entries(packed.inputs)) {
    feeds[name] = { datatype: 'INT64', dims: [...packed.dims], data };
  }
  return { feeds, layout: packed.layout };
}

/**
 * The batch of `items` stacked along dim 0. A batch of one row is that row's tensors as they are
 * (no copy): the session adapter transfers a row that is alone in its buffer to the session
 * thread, which is safe because nothing reads a request's inputs once its rows are queued.
 */
export function concatRows(items: readonly RowItem[]) {
  const only = items.length === 1 ? items[0] : undefined;
  const batch = only ? singleRowBatch(only.inputs) : concatBatch(items.map((item) => item.inputs));
  const feeds: Record<string, WorkerTensor> = {};
  for (const [name, tensor] of Object.entries(batch.inputs)) {
    feeds[name] = {
      datatype: items[0]?.datatypes[name] ?? 'FP32',
      dims: [...tensor.dims],
      data: tensor.data as WorkerTensor['data'],
    };
  }
  return { feeds, layout: batch.layout };
}

/** One row's tensors as a batch of one, in concatBatch's shape. */
function singleRowBatch(inputs: Record<string, TensorData>): {
  inputs: Record<string, TensorData>;
  layout: BatchLayout;
} {
  return { inputs, layout: { batch: 1, requests: [{ firstRow: 0, rows: 1 }] } };
}
