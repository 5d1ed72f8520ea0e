// Test support: runs a fixture's model.onnx on the tensors encodeInputs builds, as a worker would.
// Production code in this lib never touches onnxruntime (the lint rule below guards that); the
// integration tests need the real graph to check the gateway's pre/post-processing end to end.
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { MODEL_FILE } from '@modelgate/fixtures';
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
  /** Runs the model and returns every output by name. */
  runAll(tensors: Record<string, Int64Tensor>): Promise<Record<string, FloatOutput>>;
  release(): Promise<void>;
}

/** Opens `<dir>/onnx/model.onnx` on the CPU. */
export async function openFixtureModel(dir: string): Promise<FixtureModel> {
  const session = await ort.InferenceSession.create(join(dir, MODEL_FILE));
  const runAll = async (tensors: Record<string, Int64Tensor>): Promise<Record<string, FloatOutput>> => {
    const feeds: Record<string, ort.Tensor> = {};
    for (const [name, tensor] of Object.entries(tensors)) {
      feeds[name] = new ort.Tensor('int64', tensor.data, tensor.dims);
    }
    const results = await session.run(feeds);
    const outputs: Record<string, FloatOutput> = {};
    for (const name of session.outputNames) {
      const output = results[name];
      if (!(output instanceof ort.Tensor) || !(output.data instanceof Float32Array)) {
        throw new Error(`expected a float32 output ${name}`);
      }
      outputs[name] = { data: output.data, dims: [...output.dims] };
    }
    return outputs;
  };
  return {
    inputNames: session.inputNames,
    async run(tensors) {
      const [outputName = ''] = session.outputNames;
      const output = (await runAll(tensors))[outputName];
      if (output === undefined) throw new Error('expected a float32 output');
      return output;
    },
    runAll,
    release: () => session.release(),
  };
}
