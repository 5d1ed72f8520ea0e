// An image model's preprocessing, loaded once from its preprocessor_config.json: encoded bytes →
// float pixel values [3, H, W], step for step as transformers.js' ImageProcessor in Node.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { checkImageBytes } from './image-request.js';
import {
  centerCrop,
  pixelValueTable,
  resizeOutputSize,
  settleChannels,
  toPixelValues,
  toRgb,
} from './image-ops.js';
import { type ImagePreprocessing, readPreprocessorConfig } from './preprocessor-config.js';
import { DEFAULT_IMAGE_LIMITS, type ImageLimits } from './raw-pixels.js';
import { decodeImage, resizeImage } from './sharp-codec.js';

/** One preprocessed image. */
export interface PixelValues {
  /** Channel-major float32 samples (CHW). */
  data: Float32Array;
  /** [channels, height, width]; channels is always 3. */
  dims: [3, number, number];
}

/** A loaded image preprocessing. */
export interface ImageProcessor {
  /** The steps read from the config. */
  readonly steps: ImagePreprocessing;
  /**
   * Encoded JPEG/PNG/WebP → pixel values. Checks format and limits first (415/413, as
   * parseImageRequest does), INVALID_ARGUMENT when the bytes cannot be decoded.
   */
  process(bytes: Uint8Array): Promise<PixelValues>;
}

/**
 * Reads a preprocessor_config.json (parsed JSON; throws INVALID_ARGUMENT for what it cannot
 * honour, see readPreprocessorConfig) and returns its processor.
 */
export function loadImageProcessor(
  preprocessorConfig: unknown,
  limits: ImageLimits = DEFAULT_IMAGE_LIMITS,
): ImageProcessor {
  const steps = readPreprocessorConfig(preprocessorConfig);
  const table = pixelValueTable(steps);
  return {
    steps,
    async process(bytes) {
      checkImageBytes(bytes, limits);
      const decoded = await decodeImage(bytes, limits.maxImagePixels);
      let image = settleChannels(decoded.pixels, decoded.declaredChannels);
      if (steps.convertRgb) image = toRgb(image);
      else if (image.channels !== 3) {
        throw new ModelgateError(
          ErrorCode.UNSUPPORTED_MEDIA_TYPE,
          `image: has ${image.channels} channels; this model takes RGB images only`,
          { field: 'image' },
        );
      }
      if (steps.resize !== undefined) {
        const [width, height] = resizeOutputSize(image.width, image.height, steps.resize.target);
        // A shortest-edge resize scales a thin image's long side up without bound (1×2000 → 224×448000).
        // The resized image is held to the pixel limit of sent images, never below the default one
        // (an endpoint's tighter limit is about what clients send; the model's size is its own).
        const resizedLimit = Math.max(limits.maxImagePixels, DEFAULT_IMAGE_LIMITS.maxImagePixels);
        if (steps.resize.target.kind !== 'exact' && width * height > resizedLimit) {
          throw new ModelgateError(
            ErrorCode.PAYLOAD_TOO_LARGE,
            `image: ${image.width}×${image.height} resizes to ${width}×${height} for this model (its shortest side to ` +
              `the model's size), ${width * height} pixels, over the limit of ${resizedLimit}: send an image closer to square`,
            { field: 'image' },
          );
        }
        image = await resizeImage(image, width, height, steps.resize.resample);
      }
      if (steps.centerCrop !== undefined) {
        image = centerCrop(image, steps.centerCrop.width, steps.centerCrop.height);
      }
      return { data: toPixelValues(image, table), dims: [3, image.height, image.width] };
    },
  };
}
