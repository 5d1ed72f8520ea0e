import { describe, expect, it } from 'vitest';
import { type ModelgateError } from '../errors/modelgate-error.js';
import { type EndpointSpecInput, type Route, parseEndpointSpec } from './endpoint-spec.schema.js';
import { isTaskCompatible, rawEndpointRefusal } from './model-task.js';

function endpoint(overrides: Partial<EndpointSpecInput> = {}): EndpointSpecInput {
  return { name: 'sentiment', task: 'text-classification', ...overrides };
}

function route(model: string, weight: number, role: Route['role']): Route {
  return { model, weight, role };
}

function issuesOf(value: unknown): { path: string; message: string }[] {
  try {
    parseEndpointSpec(value);
  } catch (error) {
    return [...((error as ModelgateError).details.issues ?? [])];
  }
  return expect.fail('expected the endpoint spec to be rejected');
}

describe('endpointSpecSchema', () => {
  it('fills in routes, pre-processing, post-processing and sticky header defaults', () => {
    expect(parseEndpointSpec(endpoint())).toEqual({
      name: 'sentiment',
      task: 'text-classification',
      routes: [],
      preprocessing: { maxInputChars: 20000, truncation: true, maxBatchItems: 64 },
      postprocessing: {},
      stickyHeader: 'x-modelgate-route-key',
      generation: {},
    });
  });

  it('takes decoding defaults on a text-generation endpoint only, in Hugging Face names', () => {
    const spec = parseEndpointSpec(
      endpoint({ task: 'text-generation', generation: { max_new_tokens: 8, top_p: 0.9 } }),
    );
    expect(spec.generation).toEqual({ max_new_tokens: 8, top_p: 0.9 });
    expect(issuesOf(endpoint({ generation: { max_new_tokens: 8 } }))).toContainEqual({
      path: 'generation',
      message: 'decoding defaults apply to text-generation endpoints only, not text-classification',
    });
    expect(
      issuesOf(endpoint({ task: 'text-generation', generation: { typical_p: 0.9 } as object })),
    ).not.toEqual([]);
  });

  it('leaves maxTokens and timeoutMs unset unless given', () => {
    const spec = parseEndpointSpec(endpoint({ preprocessing: { maxTokens: 128 }, timeoutMs: 500 }));
    expect(spec.preprocessing).toEqual({
      maxInputChars: 20000,
      maxTokens: 128,
      truncation: true,
      maxBatchItems: 64,
    });
    expect(spec.timeoutMs).toBe(500);
    expect(parseEndpointSpec(endpoint()).preprocessing.maxTokens).toBeUndefined();
  });

  it('accepts a primary/canary split that sums to 100 plus a shadow', () => {
    const spec = parseEndpointSpec(
      endpoint({
        routes: [route('sst2:1', 90, 'primary'), route('sst2:2', 10, 'canary'), route('sst2:3', 5, 'shadow')],
      }),
    );
    expect(spec.routes).toHaveLength(3);
  });

  it('rejects served weights that do not sum to 100, shadows not counting', () => {
    expect(issuesOf(endpoint({ routes: [route('a:1', 90, 'primary'), route('b:1', 20, 'shadow')] }))).toEqual(
      [{ path: 'routes', message: 'weights of primary and canary routes must sum to 100, got 90' }],
    );
  });

  it('rejects routes without exactly one primary', () => {
    const twoPrimaries = issuesOf(
      endpoint({ routes: [route('a:1', 50, 'primary'), route('b:1', 50, 'primary')] }),
    );
    expect(twoPrimaries).toEqual([{ path: 'routes', message: 'must have exactly one primary route, got 2' }]);
    const onlyCanary = issuesOf(endpoint({ routes: [route('a:1', 100, 'canary')] }));
    expect(onlyCanary).toEqual([{ path: 'routes', message: 'must have exactly one primary route, got 0' }]);
  });

  it('rejects weights outside 0-100, bad roles, bad model ids and the same model twice', () => {
    const issues = issuesOf(
      endpoint({
        routes: [
          route('a:1', 101, 'primary'),
          route('a:1', -1, 'canary'),
          route('b', 0, 'canary'),
          route('c:1', 0, 'mirror' as 'shadow'),
        ],
      }),
    );
    expect(issues.map((issue) => issue.path)).toEqual([
      'routes[0].weight',
      'routes[1].weight',
      'routes[2].model',
      'routes[3].role',
    ]);
  });

  it('reports a repeated model once the routes are well-formed', () => {
    const issues = issuesOf(endpoint({ routes: [route('a:1', 50, 'primary'), route('a:1', 50, 'canary')] }));
    expect(issues).toEqual([
      { path: 'routes[1].model', message: "duplicate route to model 'a:1' (first at index 0)" },
    ]);
  });

  it('refuses truncation: false on question-answering, which windows long contexts instead', () => {
    const issues = issuesOf(endpoint({ task: 'question-answering', preprocessing: { truncation: false } }));
    expect(issues.map((issue) => issue.path)).toEqual(['preprocessing.truncation']);
    expect(issues[0]?.message).toMatch(
      /^does not apply to question-answering endpoints: long contexts become/,
    );
    expect(
      parseEndpointSpec(endpoint({ task: 'question-answering', preprocessing: { maxTokens: 256 } })),
    ).toMatchObject({
      preprocessing: { maxTokens: 256, truncation: true },
    });
  });

  it("refuses a question-answering maxTokens past the pipeline's 384-token windows, which would cap it", () => {
    const issues = issuesOf(endpoint({ task: 'question-answering', preprocessing: { maxTokens: 512 } }));
    expect(issues).toEqual([
      {
        path: 'preprocessing.maxTokens',
        message:
          "question-answering windows are at most 384 tokens (the pipeline's max_seq_len); give 384 or less",
      },
    ]);
    expect(
      parseEndpointSpec(endpoint({ task: 'question-answering', preprocessing: { maxTokens: 384 } }))
        .preprocessing.maxTokens,
    ).toBe(384);
    // Other tasks are capped by the model's own maximum only.
    expect(parseEndpointSpec(endpoint({ preprocessing: { maxTokens: 512 } })).preprocessing.maxTokens).toBe(
      512,
    );
  });

  it('refuses truncation: false on a text-generation endpoint without maxTokens, where it decides nothing', () => {
    const issues = issuesOf(endpoint({ task: 'text-generation', preprocessing: { truncation: false } }));
    expect(issues.map((issue) => issue.path)).toEqual(['preprocessing.truncation']);
    expect(issues[0]?.message).toMatch(
      /^applies to text-generation prompts over maxTokens, which is not set/,
    );
    expect(
      parseEndpointSpec(
        endpoint({ task: 'text-generation', preprocessing: { truncation: false, maxTokens: 64 } }),
      ).preprocessing,
    ).toMatchObject({ truncation: false, maxTokens: 64 });
  });

  it('names every bad pre-processing and top-level field', () => {
    const issues = issuesOf({
      name: '-leading-dash',
      task: 'text-classification',
      preprocessing: { maxInputChars: 0, maxTokens: -5, truncation: 'yes', maxBatchItems: 2.5 },
      stickyHeader: 'X Route',
      timeoutMs: 0,
    });
    expect(issues.map((issue) => issue.path)).toEqual([
      'name',
      'preprocessing.maxInputChars',
      'preprocessing.maxTokens',
      'preprocessing.truncation',
      'preprocessing.maxBatchItems',
      'stickyHeader',
      'timeoutMs',
    ]);
  });

  it('accepts post-processing options of its own task only', () => {
    expect(
      parseEndpointSpec(endpoint({ postprocessing: { topK: 2, multiLabel: true } })).postprocessing,
    ).toEqual({
      topK: 2,
      multiLabel: true,
    });
    const embedding = endpoint({
      task: 'feature-extraction',
      postprocessing: { pooling: 'cls', normalize: true },
    });
    expect(parseEndpointSpec(embedding).postprocessing).toEqual({ pooling: 'cls', normalize: true });
    expect(issuesOf(endpoint({ postprocessing: { pooling: 'mean', topK: 1 } }))).toEqual([
      {
        path: 'postprocessing.pooling',
        message: 'applies to feature-extraction endpoints only, not text-classification',
      },
    ]);
    expect(issuesOf(endpoint({ task: 'raw', postprocessing: { topK: 1 } })).map((i) => i.path)).toEqual([
      'postprocessing.topK',
    ]);
  });

  it('takes the classification options and the image limits on image-classification endpoints only', () => {
    const vision = endpoint({
      task: 'image-classification',
      preprocessing: { maxImageBytes: 4096, maxImagePixels: 10_000 },
      postprocessing: { topK: 2, multiLabel: false },
    });
    const parsed = parseEndpointSpec(vision);
    expect(parsed.preprocessing).toMatchObject({ maxImageBytes: 4096, maxImagePixels: 10_000 });
    expect(parsed.postprocessing).toEqual({ topK: 2, multiLabel: false });
    expect(issuesOf(endpoint({ task: 'image-classification', postprocessing: { pooling: 'mean' } }))).toEqual(
      [
        {
          path: 'postprocessing.pooling',
          message: 'applies to feature-extraction endpoints only, not image-classification',
        },
      ],
    );
    expect(issuesOf(endpoint({ preprocessing: { maxImageBytes: 4096 } }))).toEqual([
      {
        path: 'preprocessing.maxImageBytes',
        message: 'applies to image-classification and image-to-text endpoints only, not text-classification',
      },
    ]);
    expect(
      issuesOf(endpoint({ task: 'image-classification', preprocessing: { maxImagePixels: 0 } })).map(
        (issue) => issue.path,
      ),
    ).toEqual(['preprocessing.maxImagePixels']);
  });

  it('rejects an unknown pooling mode', () => {
    const issues = issuesOf(
      endpoint({ task: 'feature-extraction', postprocessing: { pooling: 'max' as 'mean' } }),
    );
    expect(issues.map((issue) => issue.path)).toEqual(['postprocessing.pooling']);
  });
});

describe('isTaskCompatible', () => {
  it('matches equal tasks and lets raw endpoints serve any model', () => {
    expect(isTaskCompatible('text-classification', 'text-classification')).toBe(true);
    expect(isTaskCompatible('raw', 'feature-extraction')).toBe(true);
    expect(isTaskCompatible('feature-extraction', 'text-classification')).toBe(false);
    expect(isTaskCompatible('text-classification', 'raw')).toBe(false);
  });
});

describe('rawEndpointRefusal', () => {
  it('refuses the generative tasks only, naming the endpoint to bind them to', () => {
    for (const task of ['text-classification', 'feature-extraction', 'image-classification'] as const)
      expect(rawEndpointRefusal(task)).toBeUndefined();
    expect(rawEndpointRefusal('image-to-text')).toMatch(
      /^a raw endpoint cannot serve an image-to-text model: .*bind the model to an image-to-text endpoint$/,
    );
  });
});
