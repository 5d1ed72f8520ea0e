// The pixel steps of image preprocessing that need no codec, each as transformers.js' RawImage and
// ImageProcessor compute them in Node (the parity reference): channel conversion, the resize
// target, center crop, and rescale → normalize → channel flip → HWC to CHW.
import { type ImagePreprocessing, type ResizeTarget } from './preprocessor-config.js';
import { type RawPixels } from './raw-pixels.js';

/** Luma of 8-bit RGB, rounded, with the weights RawImage.grayscale uses. */
function luma(red: number, green: number, blue: number): number {
  return Math.round(0.2989 * red + 0.587 * green + 0.114 * blue);
}

/**
 * Settles a decoded image to the channel count its file declares. The decoder hands gray images
 * back as sRGB; transformers.js turns them back to one channel through its luma weights, so gray
 * stays gray to the last bit. Gray + alpha (which transformers.js cannot read) goes the same way.
 */
export function settleChannels(image: RawPixels, declaredChannels: number | undefined): RawPixels {
  if (declaredChannels === undefined || declaredChannels > 2 || image.channels < 3) return image;
  const { data, width, height, channels } = image;
  const gray = new Uint8Array(width * height);
  for (let pixel = 0, at = 0; pixel < gray.length; pixel += 1, at += channels) {
    gray[pixel] = luma(data[at] ?? 0, data[at + 1] ?? 0, data[at + 2] ?? 0);
  }
  return { data: gray, width, height, channels: 1 };
}

/** The image as RGB: gray replicated into three channels, alpha dropped (not composited). */
export function toRgb(image: RawPixels): RawPixels {
  const { data, width, height, channels } = image;
  if (channels === 3) return image;
  const rgb = new Uint8Array(width * height * 3);
  const gray = channels <= 2;
  for (let at = 0, out = 0; out < rgb.length; at += channels, out += 3) {
    rgb[out] = data[at] ?? 0;
    rgb[out + 1] = data[gray ? at : at + 1] ?? 0;
    rgb[out + 2] = data[gray ? at : at + 2] ?? 0;
  }
  return { data: rgb, width, height, channels: 3 };
}

/**
 * The [width, height] a resize goes to. Edges keep the aspect ratio: scale so the shortest side is
 * `shortestEdge`, then down so the longest is at most `longestEdge`, then floor after rounding to
 * 2 decimals (transformers.js' `get_resize_output_image_size`).
 */
export function resizeOutputSize(width: number, height: number, target: ResizeTarget): [number, number] {
  if (target.kind === 'exact') return [target.width, target.height];
  const { shortestEdge, longestEdge } = target;
  const up = shortestEdge === undefined ? 1 : Math.max(shortestEdge / width, shortestEdge / height);
  const scaledWidth = width * up;
  const scaledHeight = height * up;
  const down =
    longestEdge === undefined ? 1 : Math.min(longestEdge / scaledWidth, longestEdge / scaledHeight);
  return [
    Math.floor(Number((scaledWidth * down).toFixed(2))),
    Math.floor(Number((scaledHeight * down).toFixed(2))),
  ];
}

/**
 * The centered `width` × `height` window of the image; where the window is larger than the image
 * the outside is black. An odd margin puts the extra pixel right/bottom (offsets truncate).
 */
export function centerCrop(image: RawPixels, width: number, height: number): RawPixels {
  if (image.width === width && image.height === height) return image;
  const { data, channels } = image;
  const left = Math.trunc((image.width - width) / 2);
  const top = Math.trunc((image.height - height) / 2);
  const out = new Uint8Array(width * height * channels);
  const fromX = Math.max(0, -left);
  const toX = Math.min(width, image.width - left);
  for (let y = Math.max(0, -top); y < Math.min(height, image.height - top); y += 1) {
    const source = ((y + top) * image.width + fromX + left) * channels;
    out.set(data.subarray(source, source + (toX - fromX) * channels), (y * width + fromX) * channels);
  }
  return { data: out, width, height, channels };
}

/**
 * What each 8-bit sample becomes, per source channel (R, G, B): rescale then normalize, each step
 * stored as float32 as the reference stores it. A sample's value depends only on its channel and
 * its 8 bits, so the 768 results are computed once per processor and the per-pixel pass only looks
 * them up: the same bits as computing every pixel, for a table lookup each.
 */
export interface PixelValueTable {
  /** 3 × 256 float32 values: `values[channel * 256 + sample]`. */
  readonly values: Float32Array;
  /** Lay the channels out B, G, R. */
  readonly flipChannelOrder: boolean;
}

/** The {@link PixelValueTable} of a preprocessing's rescale, normalize and channel order. */
export function pixelValueTable(steps: ImagePreprocessing): PixelValueTable {
  const values = new Float32Array(3 * 256);
  for (let channel = 0; channel < 3; channel += 1) {
    const mean = steps.normalize?.mean[channel] ?? 0;
    const std = steps.normalize?.std[channel] ?? 1;
    for (let sample = 0; sample < 256; sample += 1) {
      let value = sample;
      if (steps.rescaleFactor !== undefined) value = Math.fround(steps.rescaleFactor * value);
      if (steps.normalize !== undefined) value = Math.fround((value - mean) / std);
      values[channel * 256 + sample] = value;
    }
  }
  return { values, flipChannelOrder: steps.flipChannelOrder };
}

/**
 * Float pixel values [3, H, W] of an RGB image: each sample through `table` (rescale → normalize,
 * see pixelValueTable), channels flipped to BGR when it says so, HWC to CHW; one pass per output
 * channel over the 8-bit samples, writing the result array once.
 */
export function toPixelValues(image: RawPixels, table: PixelValueTable): Float32Array {
  const { data, width, height } = image;
  const plane = width * height;
  const chw = new Float32Array(3 * plane);
  for (let channel = 0; channel < 3; channel += 1) {
    const source = table.flipChannelOrder ? 2 - channel : channel;
    const lookup = table.values.subarray(source * 256, source * 256 + 256);
    const out = chw.subarray(channel * plane, (channel + 1) * plane);
    for (let pixel = 0, at = source; pixel < plane; pixel += 1, at += 3) {
      out[pixel] = lookup[data[at] ?? 0] ?? 0;
    }
  }
  return chw;
}
