/**
 * One model's path from decoded request to outputs: rows into the dynamic batcher, batches onto
 * an idle session instance, outputs cut back per request.
 *
 * A request with n rows becomes n batcher items, so `maxBatchSize` bounds rows, not calls.
 * Token models (int64 [batch, sequence] inputs plus an `attention_mask`) batch rows of different
 * lengths by right-padding; padding is exact because the mask hides it. Any other model only
 * batches rows whose non-batch dims match (the batch key).
 */
import {
  type BatchInfo,
  type BatchLimits,
  type NumericArray,
  type TensorData,
  DynamicBatcher,
  batchSignature,
  concatBatch,
  packTokenBatch,
  sequenceAxisOf,
  splitBatchOutput,
} from '@modelgate/batching';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import {
  type OnnxSession,
  type TensorDeclaration,
  type WorkerTensor,
} from '../model-loading/onnx-session.adapter.js';

/** One row of a request as the batcher queues it. */
interface RowItem {
  inputs: Record<string, TensorData>;
  /** OIP datatype per input name (a typed array alone cannot tell BOOL from UINT8). */
  datatypes: Record<string, string>;
  /** Test hook: hold the batch carrying this row this long before running it. */
  holdMs: number;
  /** When the row was queued (performance.now() ms). */
  enqueuedAtMs: number;
}

interface RowResult {
  outputs: Record<string, TensorData>;
  /** Time the row waited for its batch, in µs. */
  queueMicros: number;
  /** Time its batch spent in onnxruntime, in µs. */
  computeMicros: number;
}

/** A request's outputs, [rows, ...] as if unbatched, and where its time went. */
export interface InferResult {
  outputs: Record<string, WorkerTensor>;
  /** The longest queue wait among its rows, in µs. */
  queueMicros: number;
  /** The longest batch compute among its rows, in µs. */
  computeMicros: number;
}

/** What a finished batch reports, for metrics. */
export interface BatchTiming {
  rows: number;
  computeSeconds: number;
}

/** Per-call options of {@link ModelRunner.infer}. */
export interface InferOptions {
  /** Absolute deadline (ms since epoch), from the gRPC deadline; else the model's default timeout. */
  deadlineEpochMs?: number;
  /** Fires when the caller goes away. */
  signal?: AbortSignal;
  /** Test hook (WORKER_TEST_HOOKS only): hold the batch this long. */
  holdMs?: number;
}

export class ModelRunner {
  private readonly batcher: DynamicBatcher<RowItem, RowResult>;
  private readonly idleSessions: OnnxSession[];
  private readonly tokenModel: boolean;

  constructor(
    private readonly modelId: string,
    private readonly sessions: readonly OnnxSession[],
    limits: BatchLimits,
    hooks: { onBatch?: (info: BatchInfo) => void; onComputed?: (timing: BatchTiming) => void } = {},
  ) {
    const first = sessions[0];
    if (!first) throw new Error(`model ${modelId} has no sessions`);
    this.idleSessions = [...sessions];
    this.tokenModel = isTokenModel(first.inputs);
    this.batcher = new DynamicBatcher<RowItem, RowResult>({
      name: modelId,
      limits,
      instances: sessions.length,
      onBatch: hooks.onBatch,
      runBatch: async (items) => {
        const started = performance.now();
        const results = await this.runBatch(items);
        hooks.onComputed?.({ rows: items.length, computeSeconds: (performance.now() - started) / 1000 });
        return results;
      },
    });
  }

  /** Requests waiting for a batch. */
  get queueDepth(): number {
    return this.batcher.queueDepth;
  }

  /** Batches being computed now. */
  get inFlightBatches(): number {
    return this.batcher.inFlightBatches;
  }

  /** Runs one request's rows through the batcher; outputs are [rows, ...] like an unbatched run. */
  async infer(
    inputs: Record<string, WorkerTensor>,
    rows: number,
    outputNames: readonly string[] | undefined,
    options: InferOptions = {},
  ): Promise<InferResult> {
    const limits = this.batcher.limits;
    if (this.batcher.queueDepth + rows > limits.maxQueueSize) {
      throw new ModelgateError(
        ErrorCode.QUEUE_FULL,
        `model ${this.modelId}: queue full (${this.batcher.queueDepth} of ${limits.maxQueueSize} waiting)`,
        { retryAfterSeconds: 1 },
      );
    }
    // One failing row (deadline, queue) abandons the others instead of computing them.
    const abandon = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, abandon.signal]) : abandon.signal;
    const timeoutMs =
      options.deadlineEpochMs !== undefined ? options.deadlineEpochMs - Date.now() : undefined;
    const rowInputs = splitRows(inputs, rows);
    const datatypes = Object.fromEntries(Object.entries(inputs).map(([name, t]) => [name, t.datatype]));
    const pending = rowInputs.map((rowInput) =>
      this.batcher.enqueue(
        { inputs: rowInput, datatypes, holdMs: options.holdMs ?? 0, enqueuedAtMs: performance.now() },
        {
          tokens: this.tokenModel ? (Object.values(rowInput)[0]?.dims[1] ?? 1) : 1,
          signal,
          ...(timeoutMs !== undefined ? { timeoutMs: Math.max(timeoutMs, 0) } : {}),
          ...(this.tokenModel ? {} : { batchKey: batchSignature(rowInput) }),
        },
      ),
    );
    for (const row of pending) row.catch(() => abandon.abort());
    const rowResults = await Promise.all(pending);
    return {
      outputs: joinRows(rowResults, outputNames, this.sessions[0]?.outputs ?? []),
      queueMicros: Math.max(...rowResults.map((row) => row.queueMicros)),
      computeMicros: Math.max(...rowResults.map((row) => row.computeMicros)),
    };
  }

  /** Stops admitting and resolves once every queued and running request has finished. */
  drain(): Promise<void> {
    return this.batcher.drain();
  }

  /** Rejects whatever is still queued; used after a drain timeout. */
  close(): void {
    this.batcher.close();
  }

  private async runBatch(items: readonly RowItem[]): Promise<RowResult[]> {
    const holdMs = Math.max(...items.map((item) => item.holdMs));
    if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));

    const startedAt = performance.now();
    const { feeds, layout } = this.tokenModel ? packRows(items) : concatRows(items);
    const session = this.idleSessions.pop();
    if (!session)
      throw new ModelgateError(ErrorCode.INTERNAL, `model ${this.modelId}: no idle session instance`);
    let outputs: Record<string, WorkerTensor>;
    try {
      outputs = await session.run(feeds);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ModelgateError(
        ErrorCode.INTERNAL,
        `model ${this.modelId}: inference failed: ${reason}`,
        {},
        { cause: error },
      );
    } finally {
      this.idleSessions.push(session);
    }

    const computeMicros = Math.round((performance.now() - startedAt) * 1000);
    const perRow: RowResult[] = items.map((item) => ({
      outputs: {},
      queueMicros: Math.round((startedAt - item.enqueuedAtMs) * 1000),
      computeMicros,
    }));
    for (const declared of session.outputs) {
      const output = outputs[declared.name];
      if (!output) continue;
      const slices = splitBatchOutput(output.data as NumericArray, output.dims, layout, {
        name: declared.name,
        sequenceAxis: sequenceAxisOf(declared.dims),
      });
      slices.forEach((slice, index) => {
        const row = perRow[index];
        if (row) row.outputs[declared.name] = slice;
      });
    }
    return perRow;
  }
}

/** Token models: every input int64 [batch, sequence], and an attention mask that hides padding. */
function isTokenModel(inputs: readonly TensorDeclaration[]): boolean {
  return (
    inputs.some((input) => input.name === 'attention_mask') &&
    inputs.every((input) => input.datatype === 'INT64' && input.dims.length === 2)
  );
}

function splitRows(inputs: Record<string, WorkerTensor>, rows: number): Record<string, TensorData>[] {
  const result: Record<string, TensorData>[] = Array.from({ length: rows }, () => ({}));
  for (const [name, tensor] of Object.entries(inputs)) {
    const data = tensor.data as NumericArray;
    const rowLength = data.length / rows;
    const rowDims = [1, ...tensor.dims.slice(1)];
    for (let row = 0; row < rows; row++) {
      const target = result[row];
      if (target)
        target[name] = { data: data.subarray(row * rowLength, (row + 1) * rowLength), dims: rowDims };
    }
  }
  return result;
}

function packRows(items: readonly RowItem[]) {
  const packed = packTokenBatch(
    items.map((item) => item.inputs as Record<string, { data: BigInt64Array; dims: number[] }>),
  );
  const feeds: Record<string, WorkerTensor> = {};
  for (const [name, data] of Object.entries(packed.inputs)) {
    feeds[name] = { datatype: 'INT64', dims: [...packed.dims], data };
  }
  return { feeds, layout: packed.layout };
}

function concatRows(items: readonly RowItem[]) {
  const batch = concatBatch(items.map((item) => item.inputs));
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

function joinRows(
  rows: readonly RowResult[],
  outputNames: readonly string[] | undefined,
  declared: readonly TensorDeclaration[],
): Record<string, WorkerTensor> {
  const names = outputNames ?? declared.map((d) => d.name);
  const result: Record<string, WorkerTensor> = {};
  for (const name of names) {
    const joined = concatBatch(rows.map((row) => ({ [name]: requireOutput(row.outputs, name) })));
    const tensor = joined.inputs[name];
    if (!tensor) continue;
    const datatype = declared.find((d) => d.name === name)?.datatype ?? 'FP32';
    result[name] = { datatype, dims: [...tensor.dims], data: tensor.data as WorkerTensor['data'] };
  }
  return result;
}

function requireOutput(row: Record<string, TensorData>, name: string): TensorData {
  const tensor = row[name];
  if (!tensor) throw new ModelgateError(ErrorCode.INTERNAL, `output '${name}' missing from a batch result`);
  return tensor;
}
