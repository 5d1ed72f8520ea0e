import { describe, expect, it } from 'vitest';
import {
  centerCrop,
  pixelValueTable,
  resizeOutputSize,
  settleChannels,
  toPixelValues,
  toRgb,
} from './image-ops.js';
import { type ImagePreprocessing } from './preprocessor-config.js';
import { type RawPixels } from './raw-pixels.js';

const image = (width: number, height: number, channels: number, data: number[]): RawPixels => ({
  data: new Uint8Array(data),
  width,
  height,
  channels,
});
/** A one-channel image whose samples are 1, 2, 3, … row by row. */
const counting = (width: number, height: number): RawPixels =>
  image(
    width,
    height,
    1,
    Array.from({ length: width * height }, (_, index) => index + 1),
  );

describe('settleChannels', () => {
  it('turns a gray file decoded as sRGB back to one channel with the reference luma weights', () => {
    const decoded = image(2, 1, 3, [200, 200, 200, 255, 0, 0]);
    expect(settleChannels(decoded, 1)).toEqual(image(2, 1, 1, [200, 76]));
  });

  it('treats gray + alpha like gray, and leaves color files alone', () => {
    expect(settleChannels(image(1, 1, 4, [9, 9, 9, 0]), 2)).toEqual(image(1, 1, 1, [9]));
    const rgb = image(1, 1, 3, [1, 2, 3]);
    expect(settleChannels(rgb, 3)).toBe(rgb);
    expect(settleChannels(rgb, undefined)).toBe(rgb);
  });
});

describe('toRgb', () => {
  it('replicates gray and drops alpha without compositing', () => {
    expect(toRgb(image(2, 1, 1, [7, 8]))).toEqual(image(2, 1, 3, [7, 7, 7, 8, 8, 8]));
    expect(toRgb(image(1, 1, 2, [7, 0]))).toEqual(image(1, 1, 3, [7, 7, 7]));
    expect(toRgb(image(1, 1, 4, [1, 2, 3, 0]))).toEqual(image(1, 1, 3, [1, 2, 3]));
  });
});

describe('resizeOutputSize', () => {
  it('goes to an exact size as given', () => {
    expect(resizeOutputSize(640, 480, { kind: 'exact', width: 384, height: 384 })).toEqual([384, 384]);
  });

  it('scales the shortest edge to the target, flooring the other side', () => {
    expect(resizeOutputSize(640, 480, { kind: 'edges', shortestEdge: 224 })).toEqual([298, 224]);
    expect(resizeOutputSize(61, 97, { kind: 'edges', shortestEdge: 224 })).toEqual([224, 356]);
    expect(resizeOutputSize(100, 100, { kind: 'edges', shortestEdge: 50 })).toEqual([50, 50]);
  });

  it('then caps the longest edge', () => {
    expect(resizeOutputSize(640, 480, { kind: 'edges', shortestEdge: 224, longestEdge: 224 })).toEqual([
      224, 168,
    ]);
    expect(resizeOutputSize(1000, 200, { kind: 'edges', longestEdge: 500 })).toEqual([500, 100]);
  });
});

describe('centerCrop', () => {
  it('takes the centered window, an odd margin going right and bottom', () => {
    expect(centerCrop(counting(4, 3), 2, 2)).toEqual(image(2, 2, 1, [2, 3, 6, 7]));
    expect(centerCrop(counting(5, 1), 2, 1)).toEqual(image(2, 1, 1, [2, 3]));
  });

  it('pads with black where the window is larger than the image', () => {
    expect(centerCrop(counting(2, 1), 5, 2)).toEqual(image(5, 2, 1, [0, 1, 2, 0, 0, 0, 0, 0, 0, 0]));
  });

  it('pads one axis and crops the other', () => {
    expect(centerCrop(counting(4, 1), 2, 3)).toEqual(image(2, 3, 1, [0, 0, 2, 3, 0, 0]));
  });

  it('keeps an image of the right size as it is', () => {
    const same = counting(3, 3);
    expect(centerCrop(same, 3, 3)).toBe(same);
  });
});

describe('toPixelValues', () => {
  const rgb = image(2, 1, 3, [0, 51, 255, 102, 204, 255]);

  it('rescales, normalizes per channel and lays out channel-major', () => {
    const values = toPixelValues(
      rgb,
      pixelValueTable({
        convertRgb: true,
        rescaleFactor: 1 / 255,
        normalize: { mean: [0.5, 0.5, 0.5], std: [0.5, 0.25, 1] },
        flipChannelOrder: false,
      }),
    );
    const expected = [-1, -0.2, -1.2, 1.2, 0.5, 0.5].map((value) => Math.fround(value));
    expect(Array.from(values).map((value) => Number(value.toFixed(6)))).toEqual(
      expected.map((value) => Number(value.toFixed(6))),
    );
  });

  it('flips RGB to BGR when asked, and keeps raw samples without rescale', () => {
    const values = toPixelValues(rgb, pixelValueTable({ convertRgb: true, flipChannelOrder: true }));
    expect(Array.from(values)).toEqual([255, 255, 51, 204, 0, 102]);
  });

  /** The reference's formula, pixel by pixel: each step stored as float32, then flip and HWC → CHW. */
  function referencePixelValues(source: RawPixels, steps: ImagePreprocessing): Float32Array {
    const hwc = Float32Array.from(source.data);
    for (let index = 0; index < hwc.length; index += 1) {
      const channel = index % 3;
      if (steps.rescaleFactor !== undefined) hwc[index] = steps.rescaleFactor * (hwc[index] ?? 0);
      if (steps.normalize !== undefined) {
        const { mean, std } = steps.normalize;
        hwc[index] = ((hwc[index] ?? 0) - mean[channel]!) / std[channel]!;
      }
    }
    const plane = source.width * source.height;
    const chw = new Float32Array(hwc.length);
    for (let pixel = 0; pixel < plane; pixel += 1) {
      for (let channel = 0; channel < 3; channel += 1) {
        const from = steps.flipChannelOrder ? 2 - channel : channel;
        chw[channel * plane + pixel] = hwc[pixel * 3 + from] ?? 0;
      }
    }
    return chw;
  }

  /** Deterministic pseudo-random bytes (a 32-bit LCG), every value 0–255 likely present. */
  function randomImage(width: number, height: number, seed: number): RawPixels {
    const data = new Uint8Array(width * height * 3);
    let state = seed;
    for (let index = 0; index < data.length; index += 1) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      data[index] = state >>> 24;
    }
    return { data, width, height, channels: 3 };
  }

  const CASES: [string, ImagePreprocessing][] = [
    [
      'ImageNet mean/std after 1/255',
      {
        convertRgb: true,
        rescaleFactor: 1 / 255,
        normalize: { mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] },
        flipChannelOrder: false,
      },
    ],
    [
      'CLIP mean/std, BGR',
      {
        convertRgb: true,
        rescaleFactor: 0.00392156862745098,
        normalize: {
          mean: [0.48145466, 0.4578275, 0.40821073],
          std: [0.26862954, 0.26130258, 0.27577711],
        },
        flipChannelOrder: true,
      },
    ],
    [
      'normalize without rescale',
      {
        convertRgb: true,
        normalize: { mean: [127.5, 100, 3], std: [127.5, 0.7, 33] },
        flipChannelOrder: false,
      },
    ],
    ['rescale only, odd factor', { convertRgb: true, rescaleFactor: 0.0123, flipChannelOrder: false }],
  ];

  it.each(CASES)('agrees to the bit with the per-pixel formula on random pixels (%s)', (_name, steps) => {
    const source = randomImage(61, 37, 7);
    const ours = toPixelValues(source, pixelValueTable(steps));
    const reference = referencePixelValues(source, steps);
    expect(ours.length).toBe(reference.length);
    expect(Buffer.from(ours.buffer).equals(Buffer.from(reference.buffer))).toBe(true);
  });
});
