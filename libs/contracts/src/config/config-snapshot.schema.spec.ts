import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors/error-code.js';
import { isModelgateError } from '../errors/modelgate-error.js';
import {
  type ConfigSnapshotInput,
  parseConfigSnapshot,
  safeParseConfigSnapshot,
} from './config-snapshot.schema.js';
import { type EndpointSpecInput } from './endpoint-spec.schema.js';
import { type ModelSpecInput } from './model-spec.schema.js';
import { formatIssuePath } from './validation-issues.js';

const SHA = '0123456789abcdef'.repeat(4);

function model(
  name: string,
  version: string,
  task: ModelSpecInput['task'] = 'text-classification',
): ModelSpecInput {
  return {
    id: `${name}:${version}`,
    name,
    version,
    task,
    artifact: { uri: `file:///var/models/${name}/${version}/model.onnx`, sha256: SHA },
    ...(task === 'raw'
      ? {}
      : { tokenizer: { uri: `file:///var/models/${name}/${version}/tokenizer`, sha256: SHA } }),
  };
}

/** A snapshot as a registry would publish it: every section in use. */
function fullSnapshot(): ConfigSnapshotInput {
  const endpoints: EndpointSpecInput[] = [
    {
      name: 'sentiment',
      task: 'text-classification',
      routes: [
        { model: 'sst2:1', weight: 80, role: 'primary' },
        { model: 'sst2:2', weight: 20, role: 'canary' },
      ],
      preprocessing: { maxInputChars: 5000, maxTokens: 128, truncation: false, maxBatchItems: 16 },
      postprocessing: { topK: 1 },
      stickyHeader: 'x-user-id',
      timeoutMs: 2000,
    },
    {
      name: 'embed',
      task: 'feature-extraction',
      routes: [{ model: 'minilm-embed:1', weight: 100, role: 'primary' }],
      postprocessing: { pooling: 'mean', normalize: true },
    },
    { name: 'tensors', task: 'raw', routes: [{ model: 'sst2:1', weight: 100, role: 'primary' }] },
    { name: 'not-yet-routed', task: 'raw' },
  ];
  return {
    revision: 42,
    models: [
      {
        ...model('sst2', '1'),
        workerGroup: 'gpu',
        labels: ['NEGATIVE', 'POSITIVE'],
        inputs: [
          { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] },
          { name: 'attention_mask', datatype: 'INT64', dims: [-1, -1] },
        ],
        outputs: [{ name: 'logits', datatype: 'FP32', dims: [-1, 2] }],
        batching: { maxBatchSize: 64, preferredBatchSizes: [16, 32], maxQueueDelayMicros: 500 },
        runtime: { executionProviders: ['tensorrt', 'cuda', 'cpu'], instances: 2 },
      },
      model('sst2', '2'),
      model('minilm-embed', '1', 'feature-extraction'),
      model('vision', '3', 'raw'),
    ],
    endpoints,
    workerGroups: [
      { name: 'gpu', addresses: ['10.0.0.7:8001', 'dns:///workers.modelgate.svc:8001'] },
      { name: 'default', addresses: ['127.0.0.1:8001'] },
    ],
  };
}

function issuesOf(value: unknown): { path: string; message: string }[] {
  const outcome = safeParseConfigSnapshot(value);
  if (outcome.success) return expect.fail('expected the snapshot to be rejected');
  return outcome.issues;
}

describe('parseConfigSnapshot', () => {
  it('parses a full snapshot and applies the defaults it leaves out', () => {
    const snapshot = parseConfigSnapshot(fullSnapshot());
    expect(snapshot.revision).toBe(42);
    expect(snapshot.models.map((m) => m.id)).toEqual(['sst2:1', 'sst2:2', 'minilm-embed:1', 'vision:3']);
    expect(snapshot.models[0]?.batching).toEqual({
      maxBatchSize: 64,
      preferredBatchSizes: [16, 32],
      maxQueueDelayMicros: 500,
      maxBatchTokens: 16384,
      maxPaddingRatio: 1.15,
      maxQueueSize: 256,
      defaultTimeoutMs: 10000,
    });
    expect(snapshot.models[1]?.workerGroup).toBe('default');
    expect(snapshot.endpoints[1]?.stickyHeader).toBe('x-modelgate-route-key');
    expect(snapshot.endpoints[3]?.routes).toEqual([]);
    expect(snapshot.workerGroups?.[0]?.addresses).toHaveLength(2);
  });

  it('accepts the empty snapshot of a fresh registry', () => {
    expect(parseConfigSnapshot({ revision: 0 })).toEqual({
      revision: 0,
      models: [],
      endpoints: [],
      versionPolicies: [],
    });
  });

  it('throws INVALID_ARGUMENT listing every bad path, nested ones included', () => {
    const bad = fullSnapshot();
    bad.revision = -1;
    bad.models = [{ ...model('sst2', '1'), batching: { maxBatchSize: 0 } }];
    bad.endpoints = [{ name: 'Sentiment', task: 'text-classification', preprocessing: { maxBatchItems: 0 } }];
    let thrown: unknown;
    try {
      parseConfigSnapshot(bad);
    } catch (error) {
      thrown = error;
    }
    if (!isModelgateError(thrown)) return expect.fail('expected a ModelgateError');
    expect(thrown.code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(thrown.details.issues?.map((issue) => issue.path)).toEqual([
      'revision',
      'models[0].batching.maxBatchSize',
      'endpoints[0].name',
      'endpoints[0].preprocessing.maxBatchItems',
    ]);
    expect(thrown.details.field).toBe('revision');
    expect(thrown.message).toMatch(
      /^invalid config snapshot: revision: .+; models\[0\]\.batching\.maxBatchSize: /,
    );
  });

  it('rejects a queue delay that could never make a batch wait, as registration does', () => {
    const inert = { ...model('sst2', '1'), batching: { maxQueueDelayMicros: 500, preferredBatchSizes: [4] } };
    const issues = issuesOf({ revision: 1, models: [inert] });
    expect(issues.map((issue) => issue.path)).toEqual(['models[0].batching.maxQueueDelayMicros']);
    expect(issues[0]?.message).toContain('so it needs runtime.instances 2 or more;');
    const waits = { ...inert, runtime: { instances: 2 } };
    expect(
      parseConfigSnapshot({ revision: 1, models: [waits] }).models[0]?.batching.maxQueueDelayMicros,
    ).toBe(500);
  });

  it('rejects a value that is not an object at all', () => {
    expect(issuesOf('not json object')).toEqual([
      { path: '(root)', message: 'Invalid input: expected object, received string' },
    ]);
    expect(issuesOf({}).map((issue) => issue.path)).toEqual(['revision']);
  });
});

describe('snapshot cross-references', () => {
  it('rejects duplicate model ids, endpoint names and worker group names', () => {
    const snapshot = fullSnapshot();
    snapshot.models = [...(snapshot.models ?? []), model('sst2', '2')];
    snapshot.endpoints = [...(snapshot.endpoints ?? []), { name: 'embed', task: 'raw' }];
    snapshot.workerGroups = [...(snapshot.workerGroups ?? []), { name: 'gpu', addresses: [] }];
    expect(issuesOf(snapshot)).toEqual([
      { path: 'models[4].id', message: "duplicate model id 'sst2:2' (first at index 1)" },
      { path: 'endpoints[4].name', message: "duplicate endpoint name 'embed' (first at index 1)" },
      { path: 'workerGroups[2].name', message: "duplicate worker group 'gpu' (first at index 0)" },
    ]);
  });

  it('rejects a route to a model that is not in the snapshot', () => {
    const snapshot = fullSnapshot();
    snapshot.endpoints = [
      {
        name: 'sentiment',
        task: 'text-classification',
        routes: [{ model: 'sst2:9', weight: 100, role: 'primary' }],
      },
    ];
    expect(issuesOf(snapshot)).toEqual([
      {
        path: 'endpoints[0].routes[0].model',
        message: "refers to model 'sst2:9', which is not in the snapshot",
      },
    ]);
  });

  it('rejects a route to a model whose task the endpoint cannot serve', () => {
    const snapshot = fullSnapshot();
    snapshot.endpoints = [
      {
        name: 'embed',
        task: 'feature-extraction',
        routes: [
          { model: 'minilm-embed:1', weight: 50, role: 'primary' },
          { model: 'sst2:1', weight: 50, role: 'canary' },
        ],
      },
    ];
    expect(issuesOf(snapshot)).toEqual([
      {
        path: 'endpoints[0].routes[1].model',
        message: "model 'sst2:1' does text-classification, which a feature-extraction endpoint cannot serve",
      },
    ]);
  });
});

describe('formatIssuePath', () => {
  it('writes array indexes in brackets and odd keys quoted', () => {
    expect(formatIssuePath(['models', 0, 'batching', 'maxBatchSize'])).toBe(
      'models[0].batching.maxBatchSize',
    );
    expect(formatIssuePath(['labels', 'x-y'])).toBe('labels["x-y"]');
    expect(formatIssuePath([])).toBe('(root)');
  });
});
