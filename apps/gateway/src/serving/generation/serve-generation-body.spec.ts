import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { parseServeGenerationBody } from './serve-generation-body.js';

const limits = { maxInputChars: 20 };

describe('parseServeGenerationBody', () => {
  it('reads the prompt, the canonical parameters and the stream flag', () => {
    const parsed = parseServeGenerationBody(
      { text: 'Hello', parameters: { max_new_tokens: 5, stop: ['.'], return_full_text: true }, stream: true },
      limits,
    );
    expect(parsed).toMatchObject({
      input: { kind: 'text', prompt: 'Hello' },
      returnFullText: true,
      stream: true,
      params: { maxNewTokens: 5, doSample: false, stop: ['.'] },
    });
    expect(parsed.params).not.toHaveProperty('returnFullText');
  });

  it('defaults to greedy, 20 new tokens, no stop strings, not streamed', () => {
    expect(parseServeGenerationBody({ text: 'Hi' }, limits)).toMatchObject({
      stream: false,
      returnFullText: false,
      params: { maxNewTokens: 20, doSample: false, stop: [] },
    });
  });

  it('refuses unknown fields, a batch of prompts and bad parameters with 400 naming the field', () => {
    expect(() => parseServeGenerationBody({ text: 'a', temperature: 1 }, limits)).toThrow(/temperature/);
    expect(() => parseServeGenerationBody({ text: ['a', 'b'] }, limits)).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_ARGUMENT,
        message: expect.stringContaining('text') as unknown,
      }),
    );
    expect(() => parseServeGenerationBody({ text: 'a', parameters: { max_new_tokens: 0 } }, limits)).toThrow(
      /parameters\.max_new_tokens/,
    );
    expect(() => parseServeGenerationBody({ text: 'a', stream: 'yes' }, limits)).toThrow(/stream/);
  });

  it("refuses a prompt over the endpoint's maxInputChars with 413", () => {
    expect(() => parseServeGenerationBody({ text: 'x'.repeat(21) }, limits)).toThrow(
      expect.objectContaining({ code: ErrorCode.PAYLOAD_TOO_LARGE }),
    );
  });
});
