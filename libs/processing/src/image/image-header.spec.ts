import { describe, expect, it } from 'vitest';
import { readImageHeader, sniffImageFormat } from './image-header.js';

const u32be = (value: number): number[] => [
  value >>> 24,
  (value >>> 16) & 255,
  (value >>> 8) & 255,
  value & 255,
];
const u16be = (value: number): number[] => [value >>> 8, value & 255];
const u16le = (value: number): number[] => [value & 255, value >>> 8];
const u24le = (value: number): number[] => [value & 255, (value >>> 8) & 255, value >>> 16];
const text = (value: string): number[] => [...value].map((char) => char.charCodeAt(0));
const bytes = (...parts: number[][]): Uint8Array => new Uint8Array(parts.flat());

const png = (width: number, height: number): Uint8Array =>
  bytes(
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    u32be(13),
    text('IHDR'),
    u32be(width),
    u32be(height),
    [8, 2, 0, 0, 0],
  );

/** SOI, an APP0 segment, a DQT-like segment, then a baseline frame header. */
const jpeg = (width: number, height: number, sof = 0xc0): Uint8Array =>
  bytes(
    [0xff, 0xd8],
    [0xff, 0xe0],
    u16be(6),
    [1, 2, 3, 4],
    [0xff, 0xff, 0xdb],
    u16be(3),
    [0],
    [0xff, sof],
    u16be(17),
    [8],
    u16be(height),
    u16be(width),
    [3],
  );

const riff = (chunk: string, payload: number[]): Uint8Array =>
  bytes(
    text('RIFF'),
    u32be(0),
    text('WEBP'),
    text(chunk),
    u32be(payload.length),
    payload,
    new Array<number>(16).fill(0),
  );

describe('sniffImageFormat', () => {
  it('names JPEG, PNG and WebP by their magic bytes and nothing else', () => {
    expect(sniffImageFormat(png(1, 1))).toBe('png');
    expect(sniffImageFormat(jpeg(1, 1))).toBe('jpeg');
    expect(sniffImageFormat(riff('VP8L', []))).toBe('webp');
    expect(sniffImageFormat(bytes(text('GIF89a')))).toBeUndefined();
    expect(sniffImageFormat(bytes(text('BM'), [0, 0, 0, 0]))).toBeUndefined();
    expect(sniffImageFormat(new Uint8Array())).toBeUndefined();
  });
});

describe('readImageHeader', () => {
  it('reads the size of a PNG from its IHDR chunk', () => {
    expect(readImageHeader(png(640, 480))).toEqual({ format: 'png', width: 640, height: 480 });
  });

  it('reads the size of a JPEG from its frame header, skipping other segments and fill bytes', () => {
    expect(readImageHeader(jpeg(97, 61))).toEqual({ format: 'jpeg', width: 97, height: 61 });
    expect(readImageHeader(jpeg(3000, 2000, 0xc2))).toEqual({ format: 'jpeg', width: 3000, height: 2000 });
  });

  it('reads the three WebP layouts: lossy (VP8), lossless (VP8L) and extended (VP8X)', () => {
    const lossy = riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, ...u16le(150), ...u16le(200)]);
    expect(readImageHeader(lossy)).toEqual({ format: 'webp', width: 150, height: 200 });
    const bits = (33 - 1) | ((47 - 1) << 14);
    const lossless = riff('VP8L', [0x2f, bits & 255, (bits >>> 8) & 255, (bits >>> 16) & 255, bits >>> 24]);
    expect(readImageHeader(lossless)).toEqual({ format: 'webp', width: 33, height: 47 });
    const extended = riff('VP8X', [0, 0, 0, 0, ...u24le(20000 - 1), ...u24le(30000 - 1)]);
    expect(readImageHeader(extended)).toEqual({ format: 'webp', width: 20000, height: 30000 });
  });

  it('is UNSUPPORTED_MEDIA_TYPE for other formats', () => {
    expect(() => readImageHeader(bytes(text('GIF89a'), [1, 0, 1, 0]))).toThrow(
      expect.objectContaining({ code: 'UNSUPPORTED_MEDIA_TYPE' }),
    );
  });

  it('is INVALID_ARGUMENT for truncated or malformed headers and zero sizes', () => {
    const corrupt = [
      png(1, 1).subarray(0, 20),
      png(0, 10),
      jpeg(10, 10).subarray(0, 20),
      bytes([0xff, 0xd8, 0xff, 0xda, 0, 2]),
      bytes([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x01]),
      riff('VP8 ', [0, 0, 0, 1, 2, 3, 0, 0, 0, 0]),
      riff('ABCD', [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
      bytes(text('RIFF'), u32be(0), text('WEBP')),
    ];
    for (const header of corrupt) {
      expect(() => readImageHeader(header)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { field: 'image' } }),
      );
    }
  });
});
