import { type EndpointSpec, ErrorCode, type ModelgateError } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { findOpenAiModel, listOpenAiModels } from './openai-models.js';

const endpoint = (name: string, task: string) => ({ name, task }) as unknown as EndpointSpec;
const ENDPOINTS = [
  endpoint('writer', 'text-generation'),
  endpoint('sentiment', 'text-classification'),
  endpoint('embedder', 'feature-extraction'),
  endpoint('captioner', 'image-to-text'),
];
const created = () => 42;

describe('listOpenAiModels', () => {
  it('lists the text-generation and feature-extraction endpoints by name', () => {
    expect(listOpenAiModels(ENDPOINTS, created)).toEqual({
      object: 'list',
      data: [
        { id: 'embedder', object: 'model', created: 42, owned_by: 'modelgate', task: 'feature-extraction' },
        { id: 'writer', object: 'model', created: 42, owned_by: 'modelgate', task: 'text-generation' },
      ],
    });
  });
});

describe('findOpenAiModel', () => {
  const byName = new Map(ENDPOINTS.map((spec) => [spec.name, spec]));

  it('answers a listed endpoint, and 404 for an unknown one or one no /v1 route serves', () => {
    expect(findOpenAiModel(byName, 'writer', created).id).toBe('writer');
    for (const id of ['nope', 'sentiment', 'captioner']) {
      let caught: unknown;
      try {
        findOpenAiModel(byName, id, created);
      } catch (error) {
        caught = error;
      }
      expect((caught as ModelgateError).code, id).toBe(ErrorCode.NOT_FOUND);
    }
  });
});
