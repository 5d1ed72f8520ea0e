import { type ModelView } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { modelManifest, planModel, readModelManifest } from './model-manifest.js';

const SHA = 'a'.repeat(64);
const view = (version: string, uri: string): ModelView =>
  ({
    id: `bert:${version}`,
    name: 'bert',
    version,
    task: 'text-classification',
    status: 'READY',
    statusReason: null,
    workerGroup: 'default',
    source: null,
    artifact: { uri, sha256: SHA },
    encoder: null,
    externalData: [],
    tokenizer: { uri: 'file:///m/tokenizer', sha256: SHA },
    labels: ['NEGATIVE', 'POSITIVE'],
    inputs: [],
    outputs: [],
    batching: {
      maxBatchSize: 32,
      preferredBatchSizes: [],
      maxQueueDelayMicros: 0,
      maxBatchTokens: 16384,
      maxPaddingRatio: 2,
      maxQueueSize: 256,
      defaultTimeoutMs: 10000,
    },
    runtime: { instances: 1, executionProviders: ['cpu'] },
    timings: null,
    preparedAt: null,
    createdAt: '2026-12-01T00:00:00.000Z',
    updatedAt: '2026-12-01T00:00:00.000Z',
  }) as unknown as ModelView;

const document = (extra: Record<string, unknown> = {}) =>
  readModelManifest(
    {
      kind: 'Model',
      name: 'bert',
      task: 'text-classification',
      artifact: { uri: 'file:///m/model.onnx', sha256: SHA },
      tokenizer: { uri: 'file:///m/tokenizer', sha256: SHA },
      ...extra,
    },
    'f.yaml',
  );

describe('model manifests', () => {
  it('finds a registered version that matches, and registers the next one otherwise', () => {
    const versions = [view('1', 'file:///m/old.onnx'), view('2', 'file:///m/model.onnx')];
    expect(planModel(document(), versions)).toEqual({
      name: 'bert',
      action: 'unchanged',
      version: '2',
      changes: [],
    });
    expect(planModel(document({ batching: { maxBatchSize: 32 } }), versions).action).toBe('unchanged');
    const other = planModel(document({ batching: { maxBatchSize: 8 } }), versions);
    expect(other).toMatchObject({ action: 'create', changes: ['register the next version of bert'] });
    expect(other.register).toMatchObject({ name: 'bert', batching: { maxBatchSize: 8 } });
  });

  it('registers a named version the registry lacks, and refuses one it holds with other files', () => {
    const versions = [view('1', 'file:///m/old.onnx')];
    expect(planModel(document({ version: 2 }), versions)).toMatchObject({
      action: 'create',
      changes: ['register bert:2'],
    });
    expect(() => planModel(document({ version: '1' }), versions)).toThrow(
      /bert:1 is registered with other files/,
    );
  });

  it('reads back what get writes as the version it came from, and refuses what the registry would', () => {
    const held = view('3', 'file:///m/model.onnx');
    const manifest = readModelManifest(modelManifest(held), 'got.yaml');
    expect(manifest.version).toBe('3');
    expect(planModel(manifest, [held])).toMatchObject({ action: 'unchanged', version: '3' });
    expect(() => document({ labels: ['a', 'a'] })).toThrow(/f.yaml: labels/);
    expect(() => document({ colour: 'red' })).toThrow('colour: is not a known field');
  });
});
