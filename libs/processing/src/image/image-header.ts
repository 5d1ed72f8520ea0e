// Format and dimensions of an encoded image from its first bytes, before any decoding: the
// format decides by magic bytes (never by the client's content type), and the dimensions let a
// decompression bomb be refused without allocating its pixels.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type ImageFormat } from './raw-pixels.js';

/** What an image's header says. */
export interface ImageHeader {
  format: ImageFormat;
  /** Stored width in pixels (before any EXIF rotation; the pixel count is the same). */
  width: number;
  height: number;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  return prefix.every((byte, index) => bytes[at + index] === byte);
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

/** The format its magic bytes name; undefined for anything but JPEG, PNG and WebP. */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | undefined {
  if (startsWith(bytes, PNG_SIGNATURE)) return 'png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') return 'webp';
  return undefined;
}

function corrupt(format: ImageFormat, why: string): ModelgateError {
  return new ModelgateError(ErrorCode.INVALID_ARGUMENT, `image: corrupt ${format} (${why})`, {
    field: 'image',
  });
}

const u16be = (bytes: Uint8Array, at: number): number => ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0);
const u16le = (bytes: Uint8Array, at: number): number => (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8);
const u24le = (bytes: Uint8Array, at: number): number => u16le(bytes, at) | ((bytes[at + 2] ?? 0) << 16);
const u32be = (bytes: Uint8Array, at: number): number => u16be(bytes, at) * 0x10000 + u16be(bytes, at + 2);

function pngSize(bytes: Uint8Array): [number, number] {
  // Signature, then the IHDR chunk: length (4), type (4), width (4), height (4).
  if (bytes.length < 24 || ascii(bytes, 12, 4) !== 'IHDR') throw corrupt('png', 'no IHDR chunk');
  return [u32be(bytes, 16), u32be(bytes, 20)];
}

// Start-of-frame markers: C0–CF except DHT (C4), JPG (C8) and DAC (CC).
const isStartOfFrame = (marker: number): boolean =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
// Markers without a length field: TEM, RST0–7 (SOI and EOI cannot appear before the frame).
const isStandalone = (marker: number): boolean => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7);

function jpegSize(bytes: Uint8Array): [number, number] {
  let at = 2;
  while (at < bytes.length) {
    if (bytes[at] !== 0xff) throw corrupt('jpeg', `no marker at byte ${at}`);
    while (bytes[at] === 0xff) at += 1; // fill bytes
    const marker = bytes[at] ?? 0;
    at += 1;
    if (isStandalone(marker)) continue;
    if (at + 2 > bytes.length) break;
    if (isStartOfFrame(marker)) {
      // Segment length (2), sample precision (1), height (2), width (2).
      if (at + 7 > bytes.length) break;
      return [u16be(bytes, at + 5), u16be(bytes, at + 3)];
    }
    if (marker === 0xda || marker === 0xd9) throw corrupt('jpeg', 'no frame header before the scan');
    const length = u16be(bytes, at);
    if (length < 2) throw corrupt('jpeg', `segment length ${length}`);
    at += length;
  }
  throw corrupt('jpeg', 'truncated before the frame header');
}

function webpSize(bytes: Uint8Array): [number, number] {
  if (bytes.length < 30) throw corrupt('webp', 'truncated header');
  const chunk = ascii(bytes, 12, 4);
  if (chunk === 'VP8X') return [u24le(bytes, 24) + 1, u24le(bytes, 27) + 1];
  if (chunk === 'VP8L') {
    if (bytes[20] !== 0x2f) throw corrupt('webp', 'bad VP8L signature');
    // 14 bits width − 1, then 14 bits height − 1, little-endian from byte 21.
    const bits = u16le(bytes, 21) | (u16le(bytes, 23) << 16);
    return [(bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1];
  }
  if (chunk === 'VP8 ') {
    // Frame tag (3 bytes), start code 9D 01 2A, then 14-bit width and height (2 scale bits each).
    if (!startsWith(bytes, [0x9d, 0x01, 0x2a], 23)) throw corrupt('webp', 'bad VP8 start code');
    return [u16le(bytes, 26) & 0x3fff, u16le(bytes, 28) & 0x3fff];
  }
  throw corrupt('webp', `unknown first chunk '${chunk}'`);
}

/**
 * Format and size of an encoded image. Throws UNSUPPORTED_MEDIA_TYPE when the bytes are not JPEG,
 * PNG or WebP, INVALID_ARGUMENT when the header is truncated, malformed or has a zero dimension.
 */
export function readImageHeader(bytes: Uint8Array): ImageHeader {
  const format = sniffImageFormat(bytes);
  if (format === undefined) {
    throw new ModelgateError(
      ErrorCode.UNSUPPORTED_MEDIA_TYPE,
      'image: not a JPEG, PNG or WebP image (checked by its magic bytes)',
      { field: 'image' },
    );
  }
  const [width, height] =
    format === 'png' ? pngSize(bytes) : format === 'jpeg' ? jpegSize(bytes) : webpSize(bytes);
  if (width === 0 || height === 0) throw corrupt(format, `size ${width}×${height}`);
  return { format, width, height };
}
