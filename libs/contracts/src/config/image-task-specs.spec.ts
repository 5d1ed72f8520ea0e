import { describe, expect, it } from 'vitest';
import { type ModelgateError } from '../errors/modelgate-error.js';
import { type EndpointSpecInput, parseEndpointSpec } from './endpoint-spec.schema.js';
import { type ModelSpecInput, parseModelSpec } from './model-spec.schema.js';
import { isGenerativeTask, requiredBundleFiles } from './model-task.js';

const SHA = 'b'.repeat(64);

function captioner(overrides: Partial<ModelSpecInput> = {}): ModelSpecInput {
  return {
    id: 'captioner:1',
    name: 'captioner',
    version: '1',
    task: 'image-to-text',
    artifact: { uri: 'file:///models/captioner/decoder_model_merged.onnx', sha256: SHA },
    encoder: { uri: 'file:///models/captioner/encoder_model.onnx', sha256: SHA },
    tokenizer: { uri: 'file:///models/captioner/bundle.tar', sha256: SHA },
    ...overrides,
  };
}

function issuesOf(parse: () => unknown): { path: string; message: string }[] {
  try {
    parse();
  } catch (error) {
    return [...((error as ModelgateError).details.issues ?? [])];
  }
  return expect.fail('expected the spec to be rejected');
}

describe('an image-to-text model spec', () => {
  it('keeps its encoder artifact beside the decoder', () => {
    const model = parseModelSpec(captioner());
    expect(model.encoder).toEqual({ uri: 'file:///models/captioner/encoder_model.onnx', sha256: SHA });
    expect(model.artifact.uri).toContain('decoder_model_merged.onnx');
  });

  it('requires the encoder', () => {
    expect(issuesOf(() => parseModelSpec(captioner({ encoder: undefined })))).toEqual([
      { path: 'encoder', message: 'is required for task image-to-text' },
    ]);
  });

  it('refuses an encoder on any other task', () => {
    const issues = issuesOf(() => parseModelSpec(captioner({ task: 'text-generation', id: 'captioner:1' })));
    expect(issues).toEqual([
      {
        path: 'encoder',
        message: 'is for image-to-text models only (this one is text-generation); leave it out',
      },
    ]);
  });

  it('batches as a generator: the encoder batcher fields are refused', () => {
    const issues = issuesOf(() =>
      parseModelSpec(captioner({ batching: { preferredBatchSizes: [1, 2, 4, 8] } })),
    );
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe('batching.preferredBatchSizes');
    expect(issues[0]?.message).toMatch(/has no meaning for an image-to-text model/);
  });

  it('is a generative task whose bundle needs the tokenizer and the image processor', () => {
    expect(isGenerativeTask('image-to-text')).toBe(true);
    expect(isGenerativeTask('text-generation')).toBe(true);
    expect(isGenerativeTask('image-classification')).toBe(false);
    expect(requiredBundleFiles('image-to-text')).toEqual(['tokenizer.json', 'preprocessor_config.json']);
  });
});

describe('an image-classification model spec', () => {
  const classifier = (batching: ModelSpecInput['batching']): ModelSpecInput => ({
    id: 'vit:1',
    name: 'vit',
    version: '1',
    task: 'image-classification',
    artifact: { uri: 'file:///models/vit/model.onnx', sha256: SHA },
    tokenizer: { uri: 'file:///models/vit/bundle.tar', sha256: SHA },
    batching,
  });

  it('refuses maxPaddingRatio, since images are never padded, and keeps the other batching fields', () => {
    const issues = issuesOf(() => parseModelSpec(classifier({ maxPaddingRatio: 2 })));
    expect(issues.map((issue) => issue.path)).toEqual(['batching.maxPaddingRatio']);
    expect(issues[0]?.message).toMatch(/^has no meaning for an image-classification model/);
    expect(parseModelSpec(classifier({ maxBatchSize: 16, preferredBatchSizes: [8] })).batching).toMatchObject(
      {
        maxBatchSize: 16,
        preferredBatchSizes: [8],
      },
    );
  });
});

describe('image endpoints', () => {
  const endpoint = (overrides: Partial<EndpointSpecInput>): EndpointSpecInput => ({
    name: 'captions',
    task: 'image-to-text',
    ...overrides,
  });

  it('take the image limits', () => {
    const spec = parseEndpointSpec(
      endpoint({ preprocessing: { maxImageBytes: 1_000_000, maxImagePixels: 4_000_000 } }),
    );
    expect(spec.preprocessing).toMatchObject({ maxImageBytes: 1_000_000, maxImagePixels: 4_000_000 });
  });

  it.each(['image-to-text', 'image-classification'] as const)(
    'refuse the text limits they would ignore (%s)',
    (task) => {
      const issues = issuesOf(() =>
        parseEndpointSpec(
          endpoint({
            task,
            preprocessing: { maxTokens: 64, maxInputChars: 100, truncation: false, maxBatchItems: 2 },
          }),
        ),
      );
      const message = `does not apply to ${task} endpoints: a request carries an image, no text; leave it out`;
      expect(issues).toEqual([
        { path: 'preprocessing.maxTokens', message },
        { path: 'preprocessing.maxInputChars', message },
        { path: 'preprocessing.truncation', message },
        {
          path: 'preprocessing.maxBatchItems',
          message: `does not apply to ${task} endpoints: a request carries one image; leave it out`,
        },
      ]);
    },
  );

  it('leave the defaults alone', () => {
    expect(parseEndpointSpec(endpoint({})).preprocessing.maxInputChars).toBe(20000);
  });
});
