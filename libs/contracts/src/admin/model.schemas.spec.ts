import { describe, expect, it } from 'vitest';
import { registerModelSchema, uploadFieldsSchema } from './model.schemas.js';

const SHA = 'a'.repeat(64);
const decoder = { uri: 'file:///m/onnx/decoder_model_merged.onnx', sha256: SHA };
const encoder = { uri: 'file:///m/onnx/encoder_model.onnx', sha256: SHA };
const tokenizer = { uri: 'file:///m/tokenizer.tar', sha256: SHA };

/** The paths and messages of a refused registration. */
function refusal(body: unknown): string[] {
  const parsed = registerModelSchema.safeParse(body);
  expect(parsed.success).toBe(false);
  return parsed.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) ?? [];
}

describe('registerModelSchema: the encoder of an image-to-text model', () => {
  it('accepts an image-to-text registration with its encoder, or from hf:// without one', () => {
    const parsed = registerModelSchema.parse({
      name: 'cap',
      task: 'image-to-text',
      artifact: decoder,
      encoder,
      tokenizer,
    });
    expect(parsed.encoder).toEqual(encoder);
    expect(
      registerModelSchema.parse({ name: 'cap', task: 'image-to-text', source: 'hf://acme/cap' }),
    ).toMatchObject({ source: 'hf://acme/cap@main' });
  });

  it('requires the encoder beside the artifact of an image-to-text model', () => {
    expect(refusal({ name: 'cap', task: 'image-to-text', artifact: decoder, tokenizer })).toEqual([
      expect.stringMatching(/^encoder: is required for task image-to-text: give encoder \{uri, sha256\}/),
    ]);
  });

  it('refuses an encoder on another task, and beside an hf:// source', () => {
    expect(
      refusal({ name: 'sst2', task: 'text-classification', artifact: decoder, encoder, tokenizer }),
    ).toEqual(['encoder: is for image-to-text models only (this one is text-classification); leave it out']);
    expect(refusal({ name: 'cap', task: 'image-to-text', source: 'hf://acme/cap', encoder })).toEqual([
      'encoder: comes from the source when registering from hf://; leave it out',
    ]);
  });

  it('refuses external data for image-to-text, whose graphs carry their weights inside', () => {
    expect(
      refusal({
        name: 'cap',
        task: 'image-to-text',
        artifact: decoder,
        encoder,
        tokenizer,
        externalData: [{ name: 'model.onnx_data', uri: 'file:///m/onnx/model.onnx_data', sha256: SHA }],
      }),
    ).toEqual([expect.stringMatching(/^externalData: is not supported for task image-to-text/)]);
  });
});

describe('model registration: labels', () => {
  const model = { uri: 'file:///m/model.onnx', sha256: SHA };

  it('keeps labels on a classification model', () => {
    const labels = ['NEGATIVE', 'POSITIVE'];
    expect(
      registerModelSchema.parse({
        name: 'sst2',
        task: 'text-classification',
        artifact: model,
        tokenizer,
        labels,
      }).labels,
    ).toEqual(labels);
    expect(uploadFieldsSchema.parse({ name: 'vit', task: 'image-classification', labels }).labels).toEqual(
      labels,
    );
  });

  it('refuses a tokenizer for a raw model, which is served as tensors and would never use it', () => {
    expect(refusal({ name: 'tensors', task: 'raw', artifact: model, tokenizer })).toEqual([
      'tokenizer: is not used by a raw model (it is served as tensors, never tokenized); leave it out, or register the model with its task',
    ]);
    expect(
      registerModelSchema.parse({ name: 'tensors', task: 'raw', artifact: model }).tokenizer,
    ).toBeUndefined();
  });

  it('refuses a label given twice, by JSON and by upload: the config snapshot would refuse the model', () => {
    const labels = ['SAME', 'SAME'];
    const message = "labels.1: duplicate label 'SAME' (first at index 0)";
    expect(
      refusal({ name: 'sst2', task: 'text-classification', artifact: model, tokenizer, labels }),
    ).toEqual([message]);
    const upload = uploadFieldsSchema.safeParse({ name: 'vit', task: 'image-classification', labels });
    expect(upload.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)).toEqual([
      message,
    ]);
  });

  it('refuses labels on a task without classes, by JSON and by upload', () => {
    const message =
      'labels: name classes, which feature-extraction models do not have (only text-, token- and image-classification); leave them out';
    expect(
      refusal({ name: 'emb', task: 'feature-extraction', artifact: model, tokenizer, labels: ['A'] }),
    ).toEqual([message]);
    const upload = uploadFieldsSchema.safeParse({ name: 'emb', task: 'feature-extraction', labels: ['A'] });
    expect(upload.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)).toEqual([
      message,
    ]);
  });
});

describe('model registration: unknown keys in nested settings', () => {
  const model = { uri: 'file:///m/onnx/model.onnx', sha256: SHA };

  it('refuses a misspelt batching, runtime, artifact or external data key instead of dropping it', () => {
    expect(
      refusal({
        name: 'sst2',
        task: 'text-classification',
        artifact: { ...model, sha: SHA },
        tokenizer,
        batching: { maxBatchSizee: 4 },
        runtime: { instance: 2 },
        externalData: [
          { name: 'model.onnx_data', uri: 'file:///m/onnx/model.onnx_data', sha256: SHA, size: 1 },
        ],
      }),
    ).toEqual([
      'batching: Unrecognized key: "maxBatchSizee"',
      'runtime: Unrecognized key: "instance"',
      'artifact: Unrecognized key: "sha"',
      'externalData.0: Unrecognized key: "size"',
    ]);
    expect(
      uploadFieldsSchema.safeParse({ name: 'sst2', task: 'text-classification', batching: { delay: 1 } })
        .success,
    ).toBe(false);
  });

  it('still fills the defaults of the keys left out', () => {
    const parsed = registerModelSchema.parse({
      name: 'sst2',
      task: 'text-classification',
      artifact: model,
      tokenizer,
      batching: { maxBatchSize: 4 },
    });
    expect(parsed.batching).toMatchObject({ maxBatchSize: 4, maxQueueSize: 256 });
    expect(parsed.runtime.instances).toBeGreaterThan(0);
  });
});

describe('model registration: maxQueueDelayMicros', () => {
  const model = {
    name: 'sst2',
    task: 'text-classification',
    artifact: { uri: 'file:///m/onnx/model.onnx', sha256: SHA },
    tokenizer,
  };

  it('refuses a delay that could never make a batch wait, naming what it lacks', () => {
    expect(refusal({ ...model, batching: { maxQueueDelayMicros: 500 } })).toEqual([
      expect.stringMatching(
        /^batching\.maxQueueDelayMicros: makes a batch wait only to reach a preferred batch size while another batch runs, so it needs batching\.preferredBatchSizes and runtime\.instances 2 or more;/,
      ),
    ]);
    expect(
      refusal({
        ...model,
        batching: { maxQueueDelayMicros: 500, preferredBatchSizes: [4] },
        runtime: { instances: 1 },
      }),
    ).toEqual([expect.stringMatching(/so it needs runtime\.instances 2 or more;/)]);
    expect(
      uploadFieldsSchema.safeParse({
        name: 'sst2',
        task: 'text-classification',
        batching: { maxQueueDelayMicros: 1 },
      }).success,
    ).toBe(false);
  });

  it('accepts it with preferred sizes and two instances, and 0 or the default anywhere', () => {
    const waiting = { maxQueueDelayMicros: 500, preferredBatchSizes: [4, 8] };
    expect(
      registerModelSchema.parse({ ...model, batching: waiting, runtime: { instances: 2 } }).batching,
    ).toMatchObject(waiting);
    for (const maxQueueDelayMicros of [0, 2000]) {
      expect(registerModelSchema.safeParse({ ...model, batching: { maxQueueDelayMicros } }).success).toBe(
        true,
      );
    }
  });
});
