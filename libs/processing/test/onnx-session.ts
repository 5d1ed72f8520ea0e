// Test support: runs a fixture's model.onnx on the tensors encodeInputs builds, as a worker would.
// Production code in this lib never touches onnxruntime (the lint rule below guards that); the
// integration tests need the real graph to check the gateway's pre/post-processing end to end.
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { MODEL_FILE } from '@modelgate/testing';
import { type Int64Tensor } from '../src/index.js';

/** A float output with its dims. */
export interface FloatOutput {
  data: Float32Array;
  dims: number[];
}

/** An open fixture model. */
export interface FixtureModel {
  /** The model's declared input names. */
  inputNames: readonly string[];
  /** Runs the model and returns its first output. */
  run(tensors: Record<string, Int64Tensor>): Promise<FloatOutput>;
  release(): Promise<void>;
}

/** Opens `<dir>/onnx/model.onnx` on the CPU. */
export async function openFixtureModel(dir: string): Promise<FixtureModel> {
  const session = await ort.InferenceSession.create(join(dir, MODEL_FILE));
  return {
    inputNames: session.inputNames,
    async run(tensors) {
      const feeds: Record<string, ort.Tensor> = {};
      for (const [name, tensor] of Object.entries(tensors)) {
        feeds[name] = new ort.Tensor('int64', tensor.data, tensor.dims);
      }
      const results = await session.run(feeds);
      const [outputName = ''] = session.outputNames;
      const output = results[outputName];
      if (!(output instanceof ort.Tensor) || !(output.data instanceof Float32Array)) {
        throw new Error('expected a float32 output');
      }
      return { data: output.data, dims: [...output.dims] };
    },
    release: () => session.release(),
  };
}
