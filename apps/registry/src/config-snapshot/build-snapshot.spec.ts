import { ENCODER_ONLY_BATCHING_DEFAULTS, type ModelStatus, parseConfigSnapshot } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { type EndpointEntity } from '../endpoints/endpoint.entity.js';
import { type ModelEntity } from '../models/model.entity.js';
import { buildSnapshot } from './build-snapshot.js';
import { matchesEtag } from './config-snapshot.controller.js';

function model(version: number, status: ModelStatus): ModelEntity {
  return {
    id: `id-${version}`,
    name: 'sst2',
    version,
    task: 'text-classification',
    artifactUri: 'file:///models/model.onnx',
    artifactSha256: 'a'.repeat(64),
    sourceUri: null,
    encoderUri: null,
    encoderSha256: null,
    externalData: [],
    tokenizerUri: 'file:///models/tokenizer.tar',
    tokenizerSha256: 'b'.repeat(64),
    io: {
      inputs: [{ name: 'input_ids', datatype: 'INT64', dims: [-1, -1] }],
      outputs: [{ name: 'logits', datatype: 'FP32', dims: [-1, 2] }],
    },
    labels: ['NEGATIVE', 'POSITIVE'],
    batching: {
      maxBatchSize: 8,
      preferredBatchSizes: [],
      maxQueueDelayMicros: 0,
      maxBatchTokens: 1024,
      maxPaddingRatio: 1.15,
      maxQueueSize: 16,
      defaultTimeoutMs: 1000,
    },
    runtime: { executionProviders: ['cpu'], instances: 1, intraOpThreads: 0 },
    workerGroup: 'default',
    status,
    statusReason: null,
    preparedAt: null,
    timings: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  };
}

const endpoint: EndpointEntity = {
  id: 'e1',
  name: 'sentiment',
  task: 'text-classification',
  preprocessing: { maxInputChars: 100, truncation: true, maxBatchItems: 4 },
  postprocessing: { topK: 1 },
  stickyHeader: null,
  timeoutMs: 500,
  generation: {},
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

describe('buildSnapshot', () => {
  it('carries READY models only, routed or not, and validates', () => {
    const snapshot = parseConfigSnapshot(
      buildSnapshot(
        7,
        [model(1, 'READY'), model(2, 'READY'), model(3, 'PREPARING'), model(4, 'FAILED')],
        [endpoint],
        new Map([['e1', [{ model: 'sst2:1', weight: 100, role: 'primary' as const }]]]),
      ),
    );
    expect(snapshot.revision).toBe(7);
    expect(snapshot.models.map((m) => m.id)).toEqual(['sst2:1', 'sst2:2']);
    expect(snapshot.endpoints[0]).toMatchObject({
      name: 'sentiment',
      stickyHeader: 'x-modelgate-route-key',
      timeoutMs: 500,
      postprocessing: { topK: 1 },
    });
  });
});

describe('buildSnapshot: model files', () => {
  it('publishes external data files beside the artifact, and leaves the field out when there are none', () => {
    const externalData = [
      { name: 'model.onnx_data', uri: 'file:///models/model.onnx_data', sha256: 'c'.repeat(64) },
    ];
    const snapshot = parseConfigSnapshot(
      buildSnapshot(1, [{ ...model(1, 'READY'), externalData }, model(2, 'READY')], [], new Map()),
    );
    expect(snapshot.models[0]?.externalData).toEqual(externalData);
    expect(snapshot.models[1]).not.toHaveProperty('externalData');
  });
});

describe('buildSnapshot: image-to-text', () => {
  it('publishes the encoder beside the decoder artifact, and leaves the field out for other tasks', () => {
    const captioner: ModelEntity = {
      ...model(1, 'READY'),
      name: 'captioner',
      task: 'image-to-text',
      labels: null,
      encoderUri: 'file:///models/encoder_model.onnx',
      encoderSha256: 'd'.repeat(64),
      io: {
        inputs: [{ name: 'input_ids', datatype: 'INT64', dims: [-1, -1] }],
        outputs: [{ name: 'logits', datatype: 'FP32', dims: [-1, -1, 50257] }],
        generation: { maxPositions: 128, vocabSize: 50257 },
      },
      batching: { ...model(1, 'READY').batching, ...ENCODER_ONLY_BATCHING_DEFAULTS, maxBatchTokens: 4096 },
    };
    const snapshot = parseConfigSnapshot(buildSnapshot(1, [captioner, model(2, 'READY')], [], new Map()));
    expect(snapshot.models[0]).toMatchObject({
      task: 'image-to-text',
      artifact: { uri: 'file:///models/model.onnx', sha256: 'a'.repeat(64) },
      encoder: { uri: 'file:///models/encoder_model.onnx', sha256: 'd'.repeat(64) },
      generation: { maxPositions: 128, vocabSize: 50257 },
    });
    expect(snapshot.models[1]).not.toHaveProperty('encoder');
  });
});

describe('matchesEtag', () => {
  it('matches the revision tag, weak tags, lists and *', () => {
    expect(matchesEtag('"7"', '"7"')).toBe(true);
    expect(matchesEtag('W/"7"', '"7"')).toBe(true);
    expect(matchesEtag('"5", "7"', '"7"')).toBe(true);
    expect(matchesEtag('*', '"7"')).toBe(true);
    expect(matchesEtag('"6"', '"7"')).toBe(false);
    expect(matchesEtag(undefined, '"7"')).toBe(false);
  });
});
