// A graph whose batch dimension is fixed (an export with a static batch of 1): the worker refuses a
// maxBatchSize it could never run, and with the default batches no more rows than the graph takes,
// instead of building batches onnxruntime refuses and then running every row again alone.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConfigSnapshot, type ModelSpec } from '@modelgate/contracts';
import { OnnxGraphBuilder } from '@modelgate/fixtures';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type ModelManager,
  type ModelManagerFactory,
  builtModelManagers,
  builtWorkerMetrics,
  fixtureSnapshot,
  stopModelManager,
} from './support/built-model-manager.js';

const RETRY = { baseDelayMs: 20, maxDelayMs: 40, maxAttempts: 1 };

/** x FP32 [1, 4] → y = 2x, batch fixed at 1. */
async function fixedBatchGraph(dir: string): Promise<string> {
  const graph = new OnnxGraphBuilder('fixed-batch');
  const x = graph.input('x', 'float32', [1, 4]);
  const y = graph.node('Mul', [x, graph.floatScalar(2)], '/Mul', {}, 'y');
  graph.output(y, 'float32', [1, 4]);
  const path = join(dir, 'model.onnx');
  await writeFile(path, graph.toModelBytes({ opsetVersion: 17, producerName: 'modelgate-test' }));
  return path;
}

describe('worker: a graph with a fixed batch dimension', () => {
  let newManager: ModelManagerFactory;
  let base: ConfigSnapshot;
  let modelPath: string;
  let manager: ModelManager | undefined;

  beforeAll(async () => {
    newManager = await builtModelManagers();
    ({ base } = await fixtureSnapshot('fixed-batch-', [
      { name: 'fixed', fixture: 'tiny-bert-sst2', task: 'raw' },
    ]));
    modelPath = await fixedBatchGraph(await mkdtemp(join(tmpdir(), 'fixed-batch-graph-')));
  });

  afterEach(async () => {
    await stopModelManager(manager);
    manager = undefined;
  });

  const snapshot = (batching: Partial<ModelSpec['batching']>): ConfigSnapshot => {
    const spec = base.models[0]!;
    const tensor = (name: string) => ({ name, datatype: 'FP32' as const, dims: [1, 4] });
    return {
      ...base,
      models: [
        {
          ...spec,
          tokenizer: undefined,
          inputs: [tensor('x')],
          outputs: [tensor('y')],
          batching: { ...spec.batching, ...batching },
        },
      ],
    };
  };

  it('refuses a maxBatchSize above the fixed batch, saying why', async () => {
    manager = newManager({ fetchModel: () => Promise.resolve({ path: modelPath }) }, RETRY);
    await manager.applySnapshot(snapshot({ maxBatchSize: 8 }));
    expect(manager.states()).toEqual({ 'fixed:1': 'FAILED' });
    expect(manager.failureReasons()['fixed:1']).toMatch(
      /batching\.maxBatchSize 8 cannot apply: the graph takes batches of at most 1 \(x \(FP32 \[1, 4\]\)\)/,
    );
  });

  it('runs batches of the fixed size with the default maxBatchSize, every answer its own', async () => {
    const metrics = await builtWorkerMetrics();
    manager = newManager({ fetchModel: () => Promise.resolve({ path: modelPath }) }, RETRY, { metrics });
    await manager.applySnapshot(snapshot({}));
    expect(manager.states()).toEqual({ 'fixed:1': 'READY' });
    const model = manager.require('fixed');
    const row = (first: number) => ({
      x: {
        datatype: 'FP32',
        dims: [1, 4],
        data: Float32Array.from([first, first + 1, first + 2, first + 3]),
      },
    });
    const answers = await Promise.all(
      [0, 10, 20, 30].map((first) => model.runner.infer(row(first), 1, undefined)),
    );
    expect(answers.map((answer) => Array.from(answer.outputs.y?.data as Float32Array))).toEqual(
      [0, 10, 20, 30].map((first) => [2 * first, 2 * first + 2, 2 * first + 4, 2 * first + 6]),
    );
    const sizes = (await metrics.batchSize.get()).values.filter((value) => value.labels.model === 'fixed');
    const total = (suffix: string) =>
      sizes.find((value) => value.metricName === `modelgate_batch_size${suffix}`)?.value;
    // Four batches of one row each (the warm-up is not counted).
    expect([total('_count'), total('_sum')]).toEqual([4, 4]);
  });
});
