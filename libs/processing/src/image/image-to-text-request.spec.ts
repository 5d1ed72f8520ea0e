import { describe, expect, it } from 'vitest';
import { parseImageToTextRequest } from './image-to-text-request.js';
import { LIMITS, png, refusal } from '../../test/image-headers.js';

describe('parseImageToTextRequest', () => {
  it('reads a JSON image, its decoding parameters and stream flag', () => {
    const body = {
      image: `data:image/png;base64,${png(20, 10).toString('base64')}`,
      parameters: { max_new_tokens: 7, stop: ['.'] },
      stream: true,
    };
    const parsed = parseImageToTextRequest({ contentType: 'application/json', body }, LIMITS);
    expect(parsed).toMatchObject({
      image: { format: 'png', width: 20, height: 10 },
      params: { maxNewTokens: 7, doSample: false, stop: ['.'] },
      stream: true,
    });
    expect(parsed.params).not.toHaveProperty('returnFullText');
  });

  it('reads a raw image body with the default parameters, not streamed', () => {
    const parsed = parseImageToTextRequest({ contentType: 'image/png', body: png(20, 10) }, LIMITS);
    expect(parsed).toMatchObject({ params: { maxNewTokens: 20, doSample: false, stop: [] }, stream: false });
  });

  it('refuses return_full_text, unknown fields and bad parameters with 400 naming the field', () => {
    const image = png(20, 10).toString('base64');
    const fullText = refusal(() =>
      parseImageToTextRequest(
        { contentType: undefined, body: { image, parameters: { return_full_text: false } } },
        LIMITS,
      ),
    );
    expect(fullText).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(fullText.message).toMatch(/parameters\.return_full_text: .*no prompt/);
    const unknown = refusal(() =>
      parseImageToTextRequest({ contentType: undefined, body: { image, text: 'a' } }, LIMITS),
    );
    expect(unknown.code).toBe('INVALID_ARGUMENT');
    expect(unknown.message).toMatch(/text: is not a known field/);
    const parameters = { max_new_tokens: 0 };
    const bad = refusal(() =>
      parseImageToTextRequest({ contentType: undefined, body: { image, parameters } }, LIMITS),
    );
    expect(bad.code).toBe('INVALID_ARGUMENT');
    expect(bad.message).toMatch(/max_new_tokens/);
  });

  it('refuses images over the limits (413) and other formats (415) as image-classification does', () => {
    const big = { contentType: undefined, body: { image: png(200, 100).toString('base64') } };
    expect(refusal(() => parseImageToTextRequest(big, LIMITS))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const gif = Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1');
    expect(
      refusal(() => parseImageToTextRequest({ contentType: 'image/gif', body: gif }, LIMITS)),
    ).toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
    });
  });
});
