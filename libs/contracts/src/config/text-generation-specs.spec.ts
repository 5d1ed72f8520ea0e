import { describe, expect, it } from 'vitest';
import { registerModelSchema, uploadFieldsSchema } from '../admin/model.schemas.js';
import { type ModelgateError } from '../errors/modelgate-error.js';
import { parseConfigSnapshot } from './config-snapshot.schema.js';
import { type EndpointSpecInput, parseEndpointSpec } from './endpoint-spec.schema.js';
import { type ModelSpecInput, parseModelSpec } from './model-spec.schema.js';

const SHA = 'a'.repeat(64);

function generationModel(batching: ModelSpecInput['batching'] = {}): ModelSpecInput {
  return {
    id: 'gpt:1',
    name: 'gpt',
    version: '1',
    task: 'text-generation',
    artifact: { uri: 'file:///models/gpt/model.onnx', sha256: SHA },
    tokenizer: { uri: 'file:///models/gpt/tokenizer.tar', sha256: SHA },
    batching,
  };
}

function generationEndpoint(overrides: Partial<EndpointSpecInput> = {}): EndpointSpecInput {
  return { name: 'writer', task: 'text-generation', ...overrides };
}

function issuesOf(parse: () => unknown): { path: string; message: string }[] {
  try {
    parse();
  } catch (error) {
    return [...((error as ModelgateError).details.issues ?? [])];
  }
  return expect.fail('expected the spec to be rejected');
}

describe('batching of a text-generation model', () => {
  it('accepts slots, waiting sequences and a KV-cache budget', () => {
    const model = parseModelSpec(
      generationModel({ maxBatchSize: 8, maxQueueSize: 64, maxBatchTokens: 4096, defaultTimeoutMs: 30000 }),
    );
    expect(model.batching).toMatchObject({ maxBatchSize: 8, maxQueueSize: 64, maxBatchTokens: 4096 });
  });

  it('refuses the encoder batcher fields, naming each path', () => {
    const issues = issuesOf(() =>
      parseModelSpec(
        generationModel({ maxQueueDelayMicros: 500, preferredBatchSizes: [4], maxPaddingRatio: 2 }),
      ),
    );
    expect(issues.map((issue) => issue.path)).toEqual([
      'batching.maxQueueDelayMicros',
      'batching.preferredBatchSizes',
      'batching.maxPaddingRatio',
    ]);
    expect(issues[0]?.message).toMatch(
      /has no meaning for a text-generation model .*maxBatchSize \(sequences decoding together\)/,
    );
  });

  it('lets other tasks keep using those fields', () => {
    const model = parseModelSpec({
      ...generationModel({ maxQueueDelayMicros: 500, preferredBatchSizes: [4], maxPaddingRatio: 2 }),
      task: 'text-classification',
      runtime: { instances: 2 },
    });
    expect(model.batching.maxQueueDelayMicros).toBe(500);
  });

  it('is checked in a static config snapshot file, with the path of the field', () => {
    const issues = issuesOf(() =>
      parseConfigSnapshot({ revision: 1, models: [generationModel({ maxQueueDelayMicros: 0 })] }),
    );
    expect(issues.map((issue) => issue.path)).toEqual(['models[0].batching.maxQueueDelayMicros']);
  });

  it('is checked at registration, by JSON and by upload', () => {
    const registration = {
      name: 'gpt',
      task: 'text-generation',
      artifact: { uri: 'file:///m.onnx', sha256: SHA },
      tokenizer: { uri: 'file:///t.tar', sha256: SHA },
      batching: { maxQueueDelayMicros: 0 },
    };
    const json = registerModelSchema.safeParse(registration);
    expect(json.success).toBe(false);
    expect(json.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['batching.maxQueueDelayMicros']);
    const hub = registerModelSchema.safeParse({
      name: 'gpt',
      task: 'text-generation',
      source: 'hf://acme/gpt',
      batching: { preferredBatchSizes: [2] },
    });
    expect(hub.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['batching.preferredBatchSizes']);
    const upload = uploadFieldsSchema.safeParse({
      name: 'gpt',
      task: 'text-generation',
      batching: { maxPaddingRatio: 3 },
    });
    expect(upload.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['batching.maxPaddingRatio']);
  });
});

describe('a text-generation endpoint', () => {
  it('accepts routes, a prompt length limit, a deadline and a sticky header', () => {
    const spec = parseEndpointSpec(
      generationEndpoint({
        routes: [{ model: 'gpt:1', weight: 100, role: 'primary' }],
        preprocessing: { maxInputChars: 4000 },
        timeoutMs: 60000,
        stickyHeader: 'x-user',
      }),
    );
    expect(spec.preprocessing.maxInputChars).toBe(4000);
  });

  it('refuses encoder post-processing options', () => {
    const issues = issuesOf(() =>
      parseEndpointSpec(generationEndpoint({ postprocessing: { topK: 3, pooling: 'mean' } })),
    );
    expect(issues).toEqual([
      {
        path: 'postprocessing.topK',
        message:
          'applies to text-classification and image-classification endpoints only, not text-generation',
      },
      {
        path: 'postprocessing.pooling',
        message: 'applies to feature-extraction endpoints only, not text-generation',
      },
    ]);
  });

  it('refuses a batch of prompts, which it would ignore, and keeps a prompt token limit', () => {
    const issues = issuesOf(() =>
      parseEndpointSpec(generationEndpoint({ preprocessing: { maxTokens: 128, maxBatchItems: 4 } })),
    );
    expect(issues).toEqual([
      {
        path: 'preprocessing.maxBatchItems',
        message: 'does not apply to text-generation endpoints: a request carries one prompt; leave it out',
      },
    ]);
    expect(
      parseEndpointSpec(generationEndpoint({ preprocessing: { maxTokens: 128 } })).preprocessing.maxTokens,
    ).toBe(128);
  });
});
