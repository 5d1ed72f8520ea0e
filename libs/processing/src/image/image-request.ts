// The image of a request, as a client may send it: `{"image": "<base64>"}`, `{"image":
// "data:image/png;base64,..."}`, or the raw bytes as the body with an image content type. The
// bytes' magic decides the format; a declared media type must agree with it.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type ImageHeader, readImageHeader } from './image-header.js';
import { IMAGE_FORMATS, IMAGE_MEDIA_TYPES, type ImageLimits } from './raw-pixels.js';

/** An encoded image that passed the format and size checks, ready to decode. */
export interface ImageInput extends ImageHeader {
  bytes: Uint8Array;
}

/** A request as the transport received it. */
export interface ImageRequestSource {
  /** The request's Content-Type header, parameters allowed (`image/png; q=1`). */
  contentType: string | undefined;
  /** The raw bytes when the content type is an image type, else the parsed JSON body. */
  body: unknown;
}

const ACCEPTED_MEDIA_TYPES = new Set(Object.values(IMAGE_MEDIA_TYPES));
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;
const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*),/i;

const badImage = (message: string): ModelgateError =>
  new ModelgateError(ErrorCode.INVALID_ARGUMENT, `image: ${message}`, { field: 'image' });
const unsupported = (message: string): ModelgateError =>
  new ModelgateError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, `image: ${message}`, { field: 'image' });
const tooLarge = (message: string): ModelgateError =>
  new ModelgateError(ErrorCode.PAYLOAD_TOO_LARGE, `image: ${message}`, { field: 'image' });

/** The media type of a Content-Type value, lower case, without parameters. */
export function mediaTypeOf(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

function checkDeclaredType(declared: string | undefined, input: ImageInput): ImageInput {
  if (declared === undefined) return input;
  if (!ACCEPTED_MEDIA_TYPES.has(declared)) {
    throw unsupported(`${declared} is not supported; send ${IMAGE_FORMATS.join(', ')}`);
  }
  if (declared !== IMAGE_MEDIA_TYPES[input.format]) {
    throw unsupported(`declared ${declared} but the bytes are ${IMAGE_MEDIA_TYPES[input.format]}`);
  }
  return input;
}

/**
 * Checks encoded bytes: not empty, within `maxImageBytes`, a JPEG/PNG/WebP header (415
 * otherwise), dimensions within `maxImagePixels` (413), before anything is decoded.
 */
export function checkImageBytes(bytes: Uint8Array, limits: ImageLimits): ImageInput {
  if (bytes.length === 0) throw badImage('is empty');
  if (bytes.length > limits.maxImageBytes) {
    throw tooLarge(`${bytes.length} bytes is over the limit of ${limits.maxImageBytes}`);
  }
  const header = readImageHeader(bytes);
  const pixels = header.width * header.height;
  if (pixels > limits.maxImagePixels) {
    throw tooLarge(
      `${header.width}×${header.height} is ${pixels} pixels, over the limit of ${limits.maxImagePixels}`,
    );
  }
  return { ...header, bytes };
}

function decodeBase64(text: string, limits: ImageLimits): Uint8Array {
  const compact = text.replace(/\s+/g, '');
  // Refuse before decoding: 4 characters carry 3 bytes.
  if (Math.floor((compact.length * 3) / 4) - 2 > limits.maxImageBytes) {
    throw tooLarge(
      `about ${Math.floor((compact.length * 3) / 4)} bytes is over the limit of ${limits.maxImageBytes}`,
    );
  }
  if (compact.length % 4 === 1 || !(BASE64.test(compact) || BASE64URL.test(compact))) {
    throw badImage('is not valid base64');
  }
  return new Uint8Array(Buffer.from(compact, BASE64.test(compact) ? 'base64' : 'base64url'));
}

/**
 * The image of a JSON string field: base64 (standard or URL-safe, whitespace ignored) or a
 * `data:image/...;base64,` URL, whose media type must match the bytes.
 */
export function decodeImageField(value: unknown, limits: ImageLimits): ImageInput {
  if (typeof value !== 'string') {
    throw badImage(value === undefined ? 'is required' : 'must be a base64 string or a data URL');
  }
  const dataUrl = DATA_URL.exec(value);
  if (dataUrl === null) {
    if (value.startsWith('data:')) throw badImage('is a malformed data URL');
    return checkImageBytes(decodeBase64(value, limits), limits);
  }
  const declared = mediaTypeOf(dataUrl[1] ?? '');
  const parameters = (dataUrl[2] ?? '').toLowerCase().split(';');
  if (!parameters.includes('base64')) throw badImage('data URLs must be base64 (`;base64,`)');
  const bytes = decodeBase64(value.slice(dataUrl[0].length), limits);
  return checkDeclaredType(declared === '' ? undefined : declared, checkImageBytes(bytes, limits));
}

/**
 * The image of a request: the raw body when its content type is `image/*` (which must then be
 * image/jpeg, image/png or image/webp and match the bytes), else the `image` field of the JSON
 * body. Other JSON fields are left to the caller. Errors: INVALID_ARGUMENT (400) for a missing,
 * malformed or corrupt image; UNSUPPORTED_MEDIA_TYPE (415) for another format, a type that
 * does not match the bytes, or raw bytes without an image content type; PAYLOAD_TOO_LARGE (413)
 * over `limits`.
 */
export function parseImageRequest(source: ImageRequestSource, limits: ImageLimits): ImageInput {
  const mediaType = source.contentType === undefined ? undefined : mediaTypeOf(source.contentType);
  if (mediaType?.startsWith('image/') === true) {
    if (!(source.body instanceof Uint8Array)) throw badImage('the raw body is missing');
    if (!ACCEPTED_MEDIA_TYPES.has(mediaType)) {
      throw unsupported(`${mediaType} is not supported; send ${IMAGE_FORMATS.join(', ')}`);
    }
    return checkDeclaredType(mediaType, checkImageBytes(source.body, limits));
  }
  const body = source.body;
  if (body instanceof Uint8Array) {
    throw unsupported(
      `a raw body must be ${[...ACCEPTED_MEDIA_TYPES].join(', ')}; or send JSON {"image": ...}`,
    );
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      'the body must be a JSON object with an `image` field, or an image with an image content type',
    );
  }
  return decodeImageField((body as Record<string, unknown>).image, limits);
}
