import { describe, expect, it } from 'vitest';
import { parseImageClassificationRequest } from './image-classification-request.js';
import { LIMITS, png, refusal } from '../../test/image-headers.js';

describe('parseImageClassificationRequest', () => {
  it('reads a JSON image and its top_k, or a raw image body', () => {
    const bytes = png(20, 10);
    const json = parseImageClassificationRequest(
      {
        contentType: 'application/json',
        body: { image: bytes.toString('base64'), parameters: { top_k: 3 } },
      },
      LIMITS,
    );
    expect(json).toMatchObject({ image: { format: 'png', width: 20, height: 10 }, topK: 3 });
    const raw = parseImageClassificationRequest({ contentType: 'image/png', body: bytes }, LIMITS);
    expect(raw.image).toMatchObject({ format: 'png', width: 20 });
    expect(raw.topK).toBeUndefined();
  });

  it('refuses unknown fields, a missing image and a bad top_k with 400, naming the field', () => {
    const image = png(2, 2).toString('base64');
    const cases: [unknown, string][] = [
      [{ image, text: 'a cat' }, 'text: is not a known field'],
      [{}, 'image: is required'],
      [{ image: 3 }, 'image: must be a base64 string or a data URL'],
      [{ image, parameters: { top_k: 0 } }, 'parameters.top_k: must be a positive integer'],
      [{ image, parameters: { truncation: true } }, 'parameters.truncation: is not a known field'],
      [[image], 'the body must be a JSON object'],
    ];
    for (const [body, message] of cases) {
      const error = refusal(() => parseImageClassificationRequest({ contentType: undefined, body }, LIMITS));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toContain(message);
    }
  });

  it('applies the limits to JSON and raw images alike (413)', () => {
    const large = png(200, 100);
    expect(
      refusal(() =>
        parseImageClassificationRequest(
          { contentType: undefined, body: { image: large.toString('base64') } },
          LIMITS,
        ),
      ).code,
    ).toBe('PAYLOAD_TOO_LARGE');
    expect(
      refusal(() => parseImageClassificationRequest({ contentType: 'image/png', body: large }, LIMITS)).code,
    ).toBe('PAYLOAD_TOO_LARGE');
  });
});
