// Decoded images as the pipeline passes them between steps: 8-bit samples, interleaved (HWC).

/** An 8-bit interleaved image: `data.length === width * height * channels`. */
export interface RawPixels {
  /** Samples, row-major, `channels` per pixel. */
  readonly data: Uint8Array;
  readonly width: number;
  readonly height: number;
  /** 1 (gray), 2 (gray + alpha), 3 (RGB) or 4 (RGBA). */
  readonly channels: number;
}

/** The image formats the gateway accepts. */
export const IMAGE_FORMATS = ['jpeg', 'png', 'webp'] as const;

/** One of {@link IMAGE_FORMATS}. */
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

/** The media type of each accepted format. */
export const IMAGE_MEDIA_TYPES: Readonly<Record<ImageFormat, string>> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
};

/** Size limits on one image, checked before it is decoded. */
export interface ImageLimits {
  /** Largest encoded image, in bytes (after base64 decoding). */
  maxImageBytes: number;
  /** Largest width × height, read from the header (decompression bombs are refused undecoded). */
  maxImagePixels: number;
}

/** 10 MiB and 40 megapixels: a 12-megapixel phone photo passes, a 2 GB bomb does not. */
export const DEFAULT_IMAGE_LIMITS: Readonly<ImageLimits> = {
  maxImageBytes: 10 * 1024 * 1024,
  maxImagePixels: 40_000_000,
};
