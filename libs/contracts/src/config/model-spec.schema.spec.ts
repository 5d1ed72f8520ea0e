import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors/error-code.js';
import { type ModelgateError } from '../errors/modelgate-error.js';
import { type ModelSpecInput, batchingSchema, modelSpecSchema, parseModelSpec } from './model-spec.schema.js';
import { formatModelId, parseModelId } from './spec-fields.schema.js';

const SHA = 'a'.repeat(64);

function minimalModel(overrides: Partial<ModelSpecInput> = {}): ModelSpecInput {
  return {
    id: 'sst2:1',
    name: 'sst2',
    version: '1',
    task: 'text-classification',
    artifact: { uri: 'file:///models/sst2/model.onnx', sha256: SHA },
    tokenizer: { uri: 'https://models.example/sst2/tokenizer.tar', sha256: SHA },
    ...overrides,
  };
}

function issuesOf(value: unknown): { path: string; message: string }[] {
  try {
    parseModelSpec(value);
  } catch (error) {
    const modelgateError = error as ModelgateError;
    expect(modelgateError.code).toBe(ErrorCode.INVALID_ARGUMENT);
    return [...(modelgateError.details.issues ?? [])];
  }
  return expect.fail('expected the model spec to be rejected');
}

function pathsOf(value: unknown): string[] {
  return issuesOf(value).map((issue) => issue.path);
}

describe('modelSpecSchema', () => {
  it('fills in batching, runtime, worker group and io defaults, leaving maxBatchSize to the graph', () => {
    const model = parseModelSpec(minimalModel());
    expect(model.workerGroup).toBe('default');
    expect(model.inputs).toEqual([]);
    expect(model.outputs).toEqual([]);
    expect(model.batching).toEqual({
      preferredBatchSizes: [],
      maxQueueDelayMicros: 2000,
      maxBatchTokens: 16384,
      maxPaddingRatio: 1.15,
      maxQueueSize: 256,
      defaultTimeoutMs: 10000,
    });
    expect(model.runtime).toEqual({ executionProviders: ['cpu'], instances: 1, intraOpThreads: 0 });
  });

  it('keeps given values and defaults only the missing ones inside a partial batching block', () => {
    const model = parseModelSpec(
      minimalModel({ batching: { maxBatchSize: 8, preferredBatchSizes: [4, 8] } }),
    );
    expect(model.batching.maxBatchSize).toBe(8);
    expect(model.batching.preferredBatchSizes).toEqual([4, 8]);
    expect(model.batching.maxQueueSize).toBe(256);
  });

  it('accepts a full spec with io, labels and GPU providers', () => {
    const model = parseModelSpec(
      minimalModel({
        workerGroup: 'gpu-a100',
        labels: ['NEGATIVE', 'POSITIVE'],
        inputs: [
          { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] },
          { name: 'attention_mask', datatype: 'INT64', dims: [-1, -1] },
        ],
        outputs: [{ name: 'logits', datatype: 'FP32', dims: [-1, 2] }],
        runtime: { executionProviders: ['tensorrt', 'cuda', 'cpu'], instances: 2, intraOpThreads: 4 },
      }),
    );
    expect(model.outputs[0]?.dims).toEqual([-1, 2]);
    expect(model.runtime.executionProviders).toEqual(['tensorrt', 'cuda', 'cpu']);
  });

  it('stores SHA-256 digests lowercase', () => {
    const model = parseModelSpec(
      minimalModel({ artifact: { uri: 's3://bucket/m.onnx', sha256: 'AB'.repeat(32) } }),
    );
    expect(model.artifact.sha256).toBe('ab'.repeat(32));
  });

  it('accepts ONNX external data files by plain file name, digests lowercased', () => {
    const model = parseModelSpec(
      minimalModel({
        externalData: [{ name: 'model.onnx_data', uri: 's3://bucket/m.onnx_data', sha256: 'CD'.repeat(32) }],
      }),
    );
    expect(model.externalData).toEqual([
      { name: 'model.onnx_data', uri: 's3://bucket/m.onnx_data', sha256: 'cd'.repeat(32) },
    ]);
    expect(parseModelSpec(minimalModel()).externalData).toBeUndefined();
  });

  it('refuses external data names that would leave the model directory, repeat, or take the model file name', () => {
    const file = (name: string) => ({ name, uri: 'file:///m/x', sha256: SHA });
    expect(
      pathsOf(
        minimalModel({
          externalData: [
            file('../weights.bin'),
            file('sub/model.onnx_data'),
            file('..'),
            file('model.onnx'),
            file('w.bin'),
            file('w.bin'),
          ],
        }),
      ),
    ).toEqual([
      'externalData[0].name',
      'externalData[1].name',
      'externalData[2].name',
      'externalData[3].name',
      'externalData[5].name',
    ]);
  });

  it('drops unknown keys so older nodes can read newer snapshots', () => {
    const model = parseModelSpec({ ...minimalModel(), addedInAFutureRelease: true });
    expect(model).not.toHaveProperty('addedInAFutureRelease');
  });

  it('names every bad field in one error', () => {
    const paths = pathsOf(
      minimalModel({
        name: 'Bad_Name',
        version: '01',
        artifact: { uri: 'ftp://x/model.onnx', sha256: 'xyz' },
        batching: { maxBatchSize: 0, maxQueueDelayMicros: -1, defaultTimeoutMs: 1.5 },
        runtime: { instances: 0, intraOpThreads: -1 },
        inputs: [{ name: 'input_ids', datatype: 'INT64', dims: [-2, 3] }],
      }),
    );
    expect(paths).toEqual(
      expect.arrayContaining([
        'name',
        'version',
        'artifact.uri',
        'artifact.sha256',
        'batching.maxBatchSize',
        'batching.maxQueueDelayMicros',
        'batching.defaultTimeoutMs',
        'runtime.instances',
        'runtime.intraOpThreads',
        'inputs[0].dims[0]',
      ]),
    );
  });

  it('lists every issue as path: message in the error message', () => {
    try {
      parseModelSpec(minimalModel({ version: 'one', task: 'translation' as 'raw' }));
      expect.fail('expected an error');
    } catch (error) {
      expect((error as Error).message).toMatch(/^invalid model spec: /);
      expect((error as Error).message).toContain('version: must be a positive integer');
      expect((error as Error).message).toContain('task: ');
    }
  });

  it('rejects an id that is not name:version', () => {
    expect(issuesOf(minimalModel({ id: 'sst2:2' }))).toEqual([
      { path: 'id', message: "must equal name:version, 'sst2:1'" },
    ]);
  });

  it('rejects a version given as a number, zero or with leading zeros', () => {
    expect(pathsOf(minimalModel({ version: 1 as unknown as string }))).toContain('version');
    expect(pathsOf(minimalModel({ id: 'sst2:0', version: '0' }))).toContain('version');
    expect(pathsOf(minimalModel({ id: 'sst2:007', version: '007' }))).toContain('version');
  });

  it('requires a tokenizer for text tasks but not for raw', () => {
    expect(pathsOf(minimalModel({ tokenizer: undefined }))).toEqual(['tokenizer']);
    expect(modelSpecSchema.safeParse(minimalModel({ task: 'raw', tokenizer: undefined })).success).toBe(true);
  });

  it('rejects an unknown datatype and duplicate input names', () => {
    const paths = pathsOf(
      minimalModel({
        inputs: [
          { name: 'x', datatype: 'INT64', dims: [1] },
          { name: 'x', datatype: 'INT64', dims: [1] },
        ],
      }),
    );
    expect(paths).toEqual(['inputs[1].name']);
    expect(
      pathsOf(minimalModel({ outputs: [{ name: 'y', datatype: 'FLOAT' as 'FP32', dims: [] }] })),
    ).toEqual(['outputs[0].datatype']);
  });

  it('rejects empty, repeated or unknown execution providers', () => {
    expect(pathsOf(minimalModel({ runtime: { executionProviders: [] } }))).toEqual([
      'runtime.executionProviders',
    ]);
    expect(pathsOf(minimalModel({ runtime: { executionProviders: ['cuda', 'cuda'] } }))).toEqual([
      'runtime.executionProviders',
    ]);
    expect(pathsOf(minimalModel({ runtime: { executionProviders: ['rocm' as 'cpu'] } }))).toEqual([
      'runtime.executionProviders[0]',
    ]);
  });
});

describe('batchingSchema', () => {
  it('rejects preferred batch sizes above maxBatchSize or repeated', () => {
    const result = batchingSchema.safeParse({ maxBatchSize: 16, preferredBatchSizes: [8, 32, 8] });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['preferredBatchSizes.1', 'preferred batch size 32 exceeds maxBatchSize 16'],
      ['preferredBatchSizes.2', "duplicate batch size '8' (first at index 0)"],
    ]);
  });

  it('rejects a preferred size above the default maxBatchSize of 32', () => {
    expect(batchingSchema.safeParse({ preferredBatchSizes: [64] }).success).toBe(false);
  });

  it('takes a padding ratio of 1 or more and refuses one below 1, naming the field', () => {
    expect(batchingSchema.parse({ maxPaddingRatio: 2.5 }).maxPaddingRatio).toBe(2.5);
    const result = batchingSchema.safeParse({ maxPaddingRatio: 0.5 });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['maxPaddingRatio']);
  });
});

describe('model ids', () => {
  it('format and parse name:version', () => {
    expect(formatModelId('sst2', '3')).toBe('sst2:3');
    expect(parseModelId('sst2-minilm:12')).toEqual({ name: 'sst2-minilm', version: '12' });
    expect(parseModelId('sst2')).toBeUndefined();
    expect(parseModelId('SST2:1')).toBeUndefined();
  });
});
