import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { parseServeRequest } from './serve-request.js';

const LIMITS = { maxInputChars: 100, maxBatchItems: 4, truncation: true };

describe('token-classification parameters of a serve body', () => {
  it("default to the pipeline's: no aggregation, O ignored", () => {
    const request = parseServeRequest({ text: 'Sarah' }, LIMITS, { task: 'token-classification' });
    expect(request.tokenClassification).toEqual({ aggregationStrategy: 'none', ignoreLabels: ['O'] });
  });

  it('take aggregation_strategy and ignore_labels, an empty list keeping every label', () => {
    const request = parseServeRequest(
      { text: ['a', 'b'], parameters: { aggregation_strategy: 'average', ignore_labels: [] } },
      LIMITS,
      { task: 'token-classification' },
    );
    expect(request.tokenClassification).toEqual({ aggregationStrategy: 'average', ignoreLabels: [] });
    expect(request.texts).toEqual(['a', 'b']);
  });

  it.each([
    [
      { aggregation_strategy: 'longest' },
      /parameters\.aggregation_strategy: must be one of none, simple, first, average, max/,
    ],
    [{ ignore_labels: 'O' }, /parameters\.ignore_labels: must be an array of strings/],
    [{ top_k: 2 }, /parameters\.top_k: applies to text-classification, not token-classification/],
  ])('refuses %j naming the field', (parameters, message) => {
    expect(() =>
      parseServeRequest({ text: 'x', parameters }, LIMITS, { task: 'token-classification' }),
    ).toThrow(message);
  });

  it('are refused on endpoints of other tasks', () => {
    for (const parameters of [{ aggregation_strategy: 'simple' }, { ignore_labels: ['O'] }]) {
      expect(() =>
        parseServeRequest({ text: 'x', parameters }, LIMITS, { task: 'text-classification' }),
      ).toThrow(
        expect.objectContaining({
          code: ErrorCode.INVALID_ARGUMENT,
          message: expect.stringMatching(
            /applies to token-classification, not text-classification/,
          ) as string,
        }) as Error,
      );
    }
    expect(
      parseServeRequest({ text: 'x' }, LIMITS, { task: 'feature-extraction' }).tokenClassification,
    ).toBeUndefined();
  });
});
