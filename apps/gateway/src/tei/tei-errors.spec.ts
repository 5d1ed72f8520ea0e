import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { TeiEmptyBatch, isTeiPath, toTeiError } from './tei-errors.js';

const body = (code: ErrorCode) => ({ error: { code, message: 'what went wrong', request_id: 'r1' } });

describe('TEI errors', () => {
  it("answers TEI's type and status for each code, and keeps the gateway's status where TEI has none", () => {
    expect(toTeiError(undefined, body(ErrorCode.INVALID_ARGUMENT), 400)).toEqual({
      status: 422,
      body: { error: 'what went wrong', error_type: 'Validation' },
    });
    expect(toTeiError(undefined, body(ErrorCode.PAYLOAD_TOO_LARGE), 413).status).toBe(422);
    expect(toTeiError(undefined, body(ErrorCode.QUEUE_FULL), 429).body.error_type).toBe('Overloaded');
    expect(toTeiError(undefined, body(ErrorCode.UNAVAILABLE), 503)).toMatchObject({
      status: 503,
      body: { error_type: 'Unhealthy' },
    });
    expect(toTeiError(undefined, body(ErrorCode.INTERNAL), 500)).toMatchObject({
      status: 424,
      body: { error_type: 'Backend' },
    });
    expect(toTeiError(undefined, body(ErrorCode.NOT_FOUND), 404).status).toBe(404);
    expect(toTeiError(undefined, body(ErrorCode.DEADLINE_EXCEEDED), 504)).toMatchObject({
      status: 504,
      body: { error_type: 'Backend' },
    });
  });

  it('answers an empty batch 400 Empty', () => {
    const error = new TeiEmptyBatch('inputs');
    expect(error).toBeInstanceOf(ModelgateError);
    expect(toTeiError(error, body(ErrorCode.INVALID_ARGUMENT), 400)).toEqual({
      status: 400,
      body: { error: 'what went wrong', error_type: 'Empty' },
    });
  });

  it('knows the TEI paths, query strings included, and no others', () => {
    expect(
      ['/embed', '/embed_all', '/rerank', '/predict', '/tokenize', '/decode', '/info?x=1'].every(isTeiPath),
    ).toBe(true);
    expect(['/embeddings', '/v1/embeddings', '/serve/embed', '/info/x'].some(isTeiPath)).toBe(false);
  });
});
