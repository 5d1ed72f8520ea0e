import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { parseOpenAiEmbeddingsRequest, toOpenAiEmbeddings } from './openai-embeddings.js';

describe('parseOpenAiEmbeddingsRequest', () => {
  it('takes a string or strings, with float encoding by default', () => {
    expect(parseOpenAiEmbeddingsRequest({ model: 'embed', input: 'hi' })).toEqual({
      model: 'embed',
      input: 'hi',
      encoding_format: 'float',
    });
    expect(
      parseOpenAiEmbeddingsRequest({ model: 'embed', input: ['a', 'b'], dimensions: 8 }).dimensions,
    ).toBe(8);
  });

  it.each([
    [{ input: 'hi' }, /^model: /],
    [{ model: 'embed', input: [] }, /^input: /],
    [{ model: 'embed', input: [101, 2023] }, /token-id arrays are not accepted/],
    [{ model: 'embed', input: [[101]] }, /token-id arrays are not accepted/],
    [{ model: 'embed', input: 'x', dimensions: 0 }, /^dimensions: /],
    [{ model: 'embed', input: 'x', encoding_format: 'int8' }, /^encoding_format: /],
    [{ model: 'embed', input: 'x', extra: true }, /unrecognized|extra/i],
  ])('refuses %j with a clear message', (body, message) => {
    expect(() => parseOpenAiEmbeddingsRequest(body)).toThrow(message);
  });
});

describe('toOpenAiEmbeddings', () => {
  const predictions = [{ embedding: [3, 4, 12] }, { embedding: [1, 0, 0] }];

  it('lists one unit-length embedding per input with usage', () => {
    const request = parseOpenAiEmbeddingsRequest({ model: 'embed', input: ['a', 'b'] });
    expect(toOpenAiEmbeddings(request, predictions, 9, true)).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [3 / 13, 4 / 13, 12 / 13] },
        { object: 'embedding', index: 1, embedding: [1, 0, 0] },
      ],
      model: 'embed',
      usage: { prompt_tokens: 9, total_tokens: 9 },
    });
  });

  it('answers the pooled vectors as they are where the endpoint opts out of normalizing', () => {
    const request = parseOpenAiEmbeddingsRequest({ model: 'embed', input: ['a', 'b'] });
    expect(toOpenAiEmbeddings(request, predictions, 9, false).data.map((item) => item.embedding)).toEqual([
      [3, 4, 12],
      [1, 0, 0],
    ]);
  });

  it('truncates to `dimensions` and re-normalizes the shortened vector, only shortening where the endpoint opts out (Matryoshka)', () => {
    const request = parseOpenAiEmbeddingsRequest({ model: 'embed', input: ['a', 'b'], dimensions: 2 });
    const [normalized] = toOpenAiEmbeddings(request, predictions, 9, true).data;
    expect(normalized?.embedding).toEqual([0.6, 0.8]);
    const [raw] = toOpenAiEmbeddings(request, predictions, 9, false).data;
    expect(raw?.embedding).toEqual([3, 4]);
  });

  it('takes null for the optional fields, as OpenAI clients send them', () => {
    const request = parseOpenAiEmbeddingsRequest({
      model: 'embed',
      input: 'a',
      dimensions: null,
      encoding_format: null,
      user: null,
    });
    expect(request).toEqual({ model: 'embed', input: 'a', encoding_format: 'float' });
    expect(toOpenAiEmbeddings(request, [{ embedding: [3, 4, 12] }], 1, false).data[0]?.embedding).toEqual([
      3, 4, 12,
    ]);
  });

  it('encodes little-endian float32 as base64', () => {
    const request = parseOpenAiEmbeddingsRequest({ model: 'embed', input: 'a', encoding_format: 'base64' });
    const [first] = toOpenAiEmbeddings(request, [{ embedding: [0.5, -2] }], 3, false).data;
    const bytes = Buffer.from(first!.embedding as string, 'base64');
    expect([bytes.readFloatLE(0), bytes.readFloatLE(4)]).toEqual([0.5, -2]);
  });

  it('refuses more dimensions than the model has', () => {
    const request = parseOpenAiEmbeddingsRequest({ model: 'embed', input: 'a', dimensions: 4 });
    expect(() => toOpenAiEmbeddings(request, [{ embedding: [1, 2, 3] }], 1, false)).toThrow(
      expect.objectContaining({ code: ErrorCode.INVALID_ARGUMENT }) as Error,
    );
  });
});
