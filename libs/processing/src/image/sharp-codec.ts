// The only file that imports the image codec (STYLE: one adapter per third-party engine). Decode
// and resize make the same sharp calls as transformers.js' RawImage in Node, so that pixels agree
// with the parity reference to the bit: `rotate()` applies EXIF orientation, the nearest,
// bilinear and bicubic filters are an affine scale (Pillow's way), lanczos is a lanczos3 resize.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import sharp, { type OutputInfo, type Sharp } from 'sharp';
import { type Resample } from './preprocessor-config.js';
import { type RawPixels } from './raw-pixels.js';

/** A decoded image and the channel count its file declares (1 gray … 4 RGBA). */
export interface DecodedImage {
  pixels: RawPixels;
  declaredChannels: number | undefined;
}

async function toRaw(pipeline: Sharp): Promise<RawPixels> {
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), ...sizeOf(info) };
}

function sizeOf(info: OutputInfo): { width: number; height: number; channels: number } {
  return { width: info.width, height: info.height, channels: info.channels };
}

/**
 * Decodes JPEG/PNG/WebP bytes to 8-bit pixels, upright (EXIF orientation applied). A codec
 * failure (truncated or corrupt data) is INVALID_ARGUMENT; `maxPixels` backs up the header check.
 */
export async function decodeImage(bytes: Uint8Array, maxPixels: number): Promise<DecodedImage> {
  try {
    const image = sharp(bytes, { limitInputPixels: maxPixels });
    const { channels } = await image.metadata();
    return { pixels: await toRaw(image.rotate()), declaredChannels: channels };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `image: cannot be decoded (${reason})`,
      {
        field: 'image',
      },
      { cause: error },
    );
  }
}

/** The image scaled to `width` × `height` with the filter `resample`. */
export async function resizeImage(
  image: RawPixels,
  width: number,
  height: number,
  resample: Resample,
): Promise<RawPixels> {
  if (image.width === width && image.height === height) return image;
  const input = sharp(image.data, {
    raw: { width: image.width, height: image.height, channels: image.channels as 1 | 2 | 3 | 4 },
  });
  const scaled =
    resample === 'lanczos'
      ? input.resize({ width, height, fit: 'fill', kernel: 'lanczos3' })
      : input.affine([width / image.width, 0, 0, height / image.height], { interpolator: resample });
  return toRaw(scaled);
}
