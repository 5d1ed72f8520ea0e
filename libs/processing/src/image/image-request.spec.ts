import { describe, expect, it } from 'vitest';
import { decodeImageField, mediaTypeOf, parseImageRequest } from './image-request.js';
import { LIMITS, png } from '../../test/image-headers.js';

const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0, 17, 8, 0, 10, 0, 20, 3]);
const gif = Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1');

const json = (image: unknown): { contentType: string; body: unknown } => ({
  contentType: 'application/json',
  body: { image },
});
const code = (run: () => unknown): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
};

describe('parseImageRequest', () => {
  it('reads base64 (standard or URL-safe, with line breaks) from the image field', () => {
    const bytes = png(20, 10);
    const standard = parseImageRequest(json(bytes.toString('base64')), LIMITS);
    expect(standard).toMatchObject({ format: 'png', width: 20, height: 10 });
    expect(Buffer.from(standard.bytes).equals(bytes)).toBe(true);
    const wrapped = bytes.toString('base64').replace(/(.{16})/g, '$1\n');
    expect(parseImageRequest(json(wrapped), LIMITS).width).toBe(20);
    expect(parseImageRequest(json(bytes.toString('base64url')), LIMITS).width).toBe(20);
  });

  it('reads a base64 data URL whose media type matches the bytes', () => {
    const url = `data:image/jpeg;base64,${jpeg.toString('base64')}`;
    expect(parseImageRequest(json(url), LIMITS)).toMatchObject({ format: 'jpeg', width: 20, height: 10 });
    expect(decodeImageField(`data:;base64,${jpeg.toString('base64')}`, LIMITS).format).toBe('jpeg');
  });

  it('reads a raw body with an image content type, parameters allowed', () => {
    const request = { contentType: 'Image/PNG; charset=binary', body: new Uint8Array(png(5, 5)) };
    expect(parseImageRequest(request, LIMITS)).toMatchObject({ format: 'png', width: 5, height: 5 });
  });

  it('is 415 for formats other than JPEG, PNG and WebP, however they are sent', () => {
    expect(code(() => parseImageRequest(json(gif.toString('base64')), LIMITS))).toBe(
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expect(
      code(() => parseImageRequest({ contentType: 'image/gif', body: new Uint8Array(gif) }, LIMITS)),
    ).toBe('UNSUPPORTED_MEDIA_TYPE');
    const octets = { contentType: 'application/octet-stream', body: new Uint8Array(png(2, 2)) };
    expect(code(() => parseImageRequest(octets, LIMITS))).toBe('UNSUPPORTED_MEDIA_TYPE');
    const gifUrl = `data:image/gif;base64,${png(2, 2).toString('base64')}`;
    expect(code(() => parseImageRequest(json(gifUrl), LIMITS))).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('is 415 when the declared type does not match the bytes', () => {
    const raw = { contentType: 'image/jpeg', body: new Uint8Array(png(2, 2)) };
    expect(code(() => parseImageRequest(raw, LIMITS))).toBe('UNSUPPORTED_MEDIA_TYPE');
    const url = `data:image/webp;base64,${jpeg.toString('base64')}`;
    expect(code(() => parseImageRequest(json(url), LIMITS))).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('is 413 over the byte limit, before decoding base64, and over the pixel limit', () => {
    expect(code(() => parseImageRequest(json('A'.repeat(2000)), LIMITS))).toBe('PAYLOAD_TOO_LARGE');
    const big = { contentType: 'image/png', body: new Uint8Array(png(2, 2, 1001)) };
    expect(code(() => parseImageRequest(big, LIMITS))).toBe('PAYLOAD_TOO_LARGE');
    expect(code(() => parseImageRequest(json(png(101, 100).toString('base64')), LIMITS))).toBe(
      'PAYLOAD_TOO_LARGE',
    );
    expect(code(() => parseImageRequest(json(png(100, 100).toString('base64')), LIMITS))).toBeUndefined();
  });

  it('is 400 for a missing or non-string image, bad base64, malformed data URLs and empty bodies', () => {
    const bad = [
      json(undefined),
      json(42),
      json('not base64!'),
      json('data:image/png,rawtext'),
      json('data:image/png;base64'),
      json(''),
      { contentType: 'application/json', body: [1, 2] },
      { contentType: undefined, body: 'text' },
      { contentType: 'image/png', body: { image: 'x' } },
      { contentType: 'image/png', body: new Uint8Array() },
    ];
    for (const request of bad)
      expect(code(() => parseImageRequest(request, LIMITS))).toBe('INVALID_ARGUMENT');
  });

  it('names the image field in its errors', () => {
    expect(() => parseImageRequest(json(gif.toString('base64')), LIMITS)).toThrow(
      expect.objectContaining({ details: { field: 'image' } }),
    );
  });
});

describe('mediaTypeOf', () => {
  it('lower-cases and drops parameters', () => {
    expect(mediaTypeOf(' Image/WebP ; q=0.9')).toBe('image/webp');
  });
});
