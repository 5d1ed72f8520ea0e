/**
 * The registry's only onnxruntime-node import: opens a model on the CPU to read its declared
 * inputs and outputs and time one warm-up run. Spinning is off so the event loop keeps its core.
 */
import { basename } from 'node:path';
import {
  DATATYPE_BY_RUNTIME_TYPE,
  ErrorCode,
  ModelgateError,
  RUNTIME_TYPE_BY_DATATYPE,
  type TensorMetadata,
  warmUpTensors,
} from '@modelgate/contracts';
import * as ort from 'onnxruntime-node';

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
      const tensors = warmUpTensors(inputs, image);
      if (tensors === undefined) return undefined;
      const feeds: Record<string, ort.Tensor> = {};
      for (const [name, { datatype, data, dims }] of Object.entries(tensors)) {
        feeds[name] = new ort.Tensor(RUNTIME_TYPE_BY_DATATYPE[datatype] as ort.Tensor.Type, data, dims);
      }
      const started = performance.now();
      await session.run(feeds);
      return performance.now() - started;
    },
    release: () => session.release(),
  };
}
