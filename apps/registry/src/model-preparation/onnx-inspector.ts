/**
 * The registry's only onnxruntime-node import: opens a model on the CPU to read its declared
 * inputs and outputs and time one warm-up run. Spinning is off so the event loop keeps its core.
 */
import { basename } from 'node:path';
import {
  DATATYPE_BY_RUNTIME_TYPE,
  ErrorCode,
  ModelgateError,
  type TensorMetadata,
} from '@modelgate/contracts';
import * as ort from 'onnxruntime-node';
import { PIXEL_VALUES } from '@modelgate/contracts';

/** An opened model: what it declares, and a warm-up run. */
export interface InspectedModel {
  inputs: TensorMetadata[];
  outputs: TensorMetadata[];
  /** Names of inputs or outputs that are not tensors (sequences, maps); such models cannot be served. */
  nonTensors: string[];
  /**
   * Runs one batch-1 request of sequence length 8 (`image`: the [C, H, W] of a `pixel_values`
   * input with dynamic image dims); its duration in ms, or undefined when inputs cannot be made up.
   */
  warmUp(image?: readonly number[]): Promise<number | undefined>;
  release(): Promise<void>;
}

const OIP_BY_ORT_TYPE = DATATYPE_BY_RUNTIME_TYPE;

/** onnxruntime's words for an initializer whose external data file is not beside the model. */
const MISSING_EXTERNAL_DATA = /External data path does not exist: "([^"]+)"/;

/** Sequence length of the warm-up request for dynamic non-batch dims. */
const WARM_UP_SEQUENCE = 8;

/** Opens `path` with onnxruntime; INVALID_ARGUMENT with onnxruntime's reason when it cannot. */
export async function openOnnxModel(path: string, fileLabel: string): Promise<InspectedModel> {
  let session: ort.InferenceSession;
  try {
    session = await ort.InferenceSession.create(path, {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      intraOpNumThreads: 1,
      extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
      logSeverityLevel: 3,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const missing = MISSING_EXTERNAL_DATA.exec(message)?.[1];
    if (missing !== undefined) {
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `${fileLabel} keeps weights in the ONNX external data file "${basename(missing)}", which was not ` +
          `registered with it: give it as externalData (upload: model.onnx_data beside model.onnx; ` +
          `CLI: --external-data-uri/--external-data-sha256/--external-data-name)`,
      );
    }
    const reason = message.split('\n')[0]?.slice(0, 400);
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `${fileLabel} could not be opened by onnxruntime: ${reason}`,
    );
  }
  const nonTensors: string[] = [];
  const declare = (meta: ort.InferenceSession.ValueMetadata): TensorMetadata[] => {
    const datatype = meta.isTensor ? OIP_BY_ORT_TYPE[meta.type] : undefined;
    if (!meta.isTensor || datatype === undefined) {
      nonTensors.push(meta.name);
      return [];
    }
    const dims = meta.shape.map((dim) => (typeof dim === 'number' && dim >= 0 ? dim : -1));
    return [{ name: meta.name, datatype, dims }];
  };
  const inputs = session.inputMetadata.flatMap(declare);
  const outputs = session.outputMetadata.flatMap(declare);
  return {
    inputs,
    outputs,
    nonTensors,
    async warmUp(image?: readonly number[]) {
      const feeds = warmUpFeeds(inputs, image);
      if (feeds === undefined) return undefined;
      const started = performance.now();
      await session.run(feeds);
      return performance.now() - started;
    },
    release: () => session.release(),
  };
}

/** A decoder's cache input, `past_key_values.N.key|value` [batch, heads, past sequence, head size]. */
const PAST_INPUT = /^past_key_values\.\d+\.(key|value)$/;

/** The dynamic axis of a cache input that counts past tokens. */
const PAST_SEQUENCE_AXIS = 2;

/**
 * Batch 1, dynamic dims 8 long (a `pixel_values` input's image dims: `image` when given); input_ids start like [CLS] (101), masks are all ones. A decoder's
 * cache starts empty (past sequence 0), as a generation's first step does, so its attention_mask
 * covers the 8 new tokens only.
 */
function warmUpFeeds(
  inputs: readonly TensorMetadata[],
  image?: readonly number[],
): Record<string, ort.Tensor> | undefined {
  const feeds: Record<string, ort.Tensor> = {};
  for (const input of inputs) {
    const past = PAST_INPUT.test(input.name);
    // An image graph cannot run on 8×8 pixels: dynamic image dims take the image processor's size.
    const known = input.name === PIXEL_VALUES && image ? [1, ...image] : [];
    const dims = input.dims.map((dim, axis) =>
      dim >= 0
        ? dim
        : (known[axis] ?? -1) >= 0
          ? known[axis]!
          : axis === 0
            ? 1
            : past && axis === PAST_SEQUENCE_AXIS
              ? 0
              : WARM_UP_SEQUENCE,
    );
    const count = dims.reduce((a, b) => a * b, 1);
    const fill = input.name.includes('mask') ? 1 : input.name === 'input_ids' ? 101 : 0;
    switch (input.datatype) {
      case 'INT64':
        feeds[input.name] = new ort.Tensor('int64', new BigInt64Array(count).fill(BigInt(fill)), dims);
        break;
      case 'INT32':
        feeds[input.name] = new ort.Tensor('int32', new Int32Array(count).fill(fill), dims);
        break;
      case 'FP32':
        feeds[input.name] = new ort.Tensor('float32', new Float32Array(count).fill(fill), dims);
        break;
      case 'BOOL':
        // A merged decoder's use_cache_branch: false, the no-past branch of an empty cache.
        feeds[input.name] = new ort.Tensor('bool', new Uint8Array(count), dims);
        break;
      default:
        return undefined;
    }
  }
  return feeds;
}
