import { describe, expect, it } from 'vitest';
import { pixelValuesGeometry, readPreprocessorConfig } from './preprocessor-config.js';

const VIT = {
  image_processor_type: 'ViTImageProcessor',
  do_resize: true,
  size: { height: 224, width: 224 },
  resample: 2,
  do_rescale: true,
  rescale_factor: 1 / 255,
  do_normalize: true,
  image_mean: [0.5, 0.5, 0.5],
  image_std: [0.5, 0.5, 0.5],
};

function issuesOf(json: unknown): string[] {
  try {
    readPreprocessorConfig(json);
    return [];
  } catch (error) {
    const { code, details } = error as { code: string; details: { issues?: { path: string }[] } };
    expect(code).toBe('INVALID_ARGUMENT');
    return (details.issues ?? []).map((issue) => issue.path);
  }
}

describe('readPreprocessorConfig', () => {
  it('reads a ViT config into resize → rescale → normalize', () => {
    expect(readPreprocessorConfig(VIT)).toEqual({
      processorType: 'ViTImageProcessor',
      convertRgb: true,
      resize: { target: { kind: 'exact', width: 224, height: 224 }, resample: 'bilinear' },
      rescaleFactor: 1 / 255,
      normalize: { mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] },
      flipChannelOrder: false,
    });
  });

  it('reads CLIP: shortest edge, center crop, bicubic, a Fast suffix dropped', () => {
    const steps = readPreprocessorConfig({
      ...VIT,
      image_processor_type: 'CLIPImageProcessorFast',
      size: { shortest_edge: 224 },
      resample: 3,
      do_center_crop: true,
      crop_size: 224,
      processor_class: 'CLIPProcessor',
    });
    expect(steps.processorType).toBe('CLIPImageProcessor');
    expect(steps.resize).toEqual({ target: { kind: 'edges', shortestEdge: 224 }, resample: 'bicubic' });
    expect(steps.centerCrop).toEqual({ width: 224, height: 224 });
  });

  it('reads an int size as transformers.js does: shortest edge n, longest edge max_size or n', () => {
    expect(readPreprocessorConfig({ ...VIT, size: 224 }).resize?.target).toEqual({
      kind: 'edges',
      shortestEdge: 224,
      longestEdge: 224,
    });
    expect(readPreprocessorConfig({ ...VIT, size: 800, max_size: 1333 }).resize?.target).toMatchObject({
      longestEdge: 1333,
    });
  });

  it('takes the defaults of transformers.js: rescale by 1/255, bilinear, RGB, resize only with a size', () => {
    expect(readPreprocessorConfig({ size: { height: 8, width: 8 } })).toEqual({
      convertRgb: true,
      resize: { target: { kind: 'exact', width: 8, height: 8 }, resample: 'bilinear' },
      rescaleFactor: 1 / 255,
      flipChannelOrder: false,
    });
    expect(
      readPreprocessorConfig({ do_rescale: false, size: { height: 8, width: 8 }, do_resize: false }),
    ).toEqual({
      convertRgb: true,
      flipChannelOrder: false,
    });
  });

  it('accepts scalar mean/std, the legacy mean/std names and channel flipping', () => {
    const steps = readPreprocessorConfig({
      feature_extractor_type: 'MobileViTFeatureExtractor',
      do_normalize: true,
      mean: 0.5,
      std: [0.1, 0.2, 0.3],
      do_flip_channel_order: true,
    });
    expect(steps.normalize).toEqual({ mean: [0.5, 0.5, 0.5], std: [0.1, 0.2, 0.3] });
    expect(steps.flipChannelOrder).toBe(true);
  });

  it('ignores bookkeeping keys and switches that are off', () => {
    const extra = { ...VIT, auto_map: {}, do_pad: false, do_thumbnail: null, input_data_format: null };
    expect(issuesOf(extra)).toEqual([]);
  });

  it('refuses every key that would change pixels in a way it does not implement', () => {
    const config = { ...VIT, do_pad: true, size_divisibility: 32, do_thumbnail: true, crop_pct: 0.875 };
    expect(issuesOf(config)).toEqual(['do_pad', 'size_divisibility', 'do_thumbnail', 'crop_pct']);
  });

  it('refuses processor types with their own steps, and box/hamming resampling', () => {
    expect(issuesOf({ ...VIT, image_processor_type: 'ConvNextImageProcessor' })).toEqual([
      'image_processor_type',
    ]);
    expect(issuesOf({ ...VIT, resample: 4 })).toEqual(['resample']);
    expect(issuesOf({ ...VIT, resample: 5 })).toEqual(['resample']);
  });

  it('refuses incomplete settings: resize without size, crop without crop_size, normalize without mean', () => {
    expect(issuesOf({ do_resize: true })).toEqual(['size']);
    expect(issuesOf({ ...VIT, size: {} })).toEqual(['size']);
    expect(issuesOf({ ...VIT, do_center_crop: true })).toEqual(['crop_size']);
    expect(issuesOf({ do_normalize: true, image_mean: [0.5, 0.5, 0.5] })).toEqual(['image_mean']);
    expect(issuesOf({ ...VIT, image_std: [0.5, 0, 0.5] })).toEqual(['image_std']);
  });

  it('refuses mean/std without do_normalize, where Python and transformers.js disagree', () => {
    const { do_normalize: _normalize, ...rest } = VIT;
    expect(issuesOf(rest)).toEqual(['do_normalize']);
  });

  it('refuses malformed values and non-objects', () => {
    expect(issuesOf({ ...VIT, size: { height: 0, width: 224 } }).length).toBeGreaterThan(0);
    expect(issuesOf({ ...VIT, image_mean: [0.5, 0.5] })).toEqual(['image_mean']);
    expect(issuesOf({ ...VIT, data_format: 'channels_last' })).toEqual(['data_format']);
    expect(issuesOf([1, 2]).length).toBeGreaterThan(0);
  });
});

describe('pixelValuesGeometry', () => {
  it('is the exact resize of a ViT processor', () => {
    const steps = readPreprocessorConfig({
      image_processor_type: 'ViTImageProcessor',
      size: { height: 384, width: 384 },
    });
    expect(pixelValuesGeometry(steps)).toEqual({ channels: 3, height: 384, width: 384 });
  });

  it('is the center crop when one follows an edge resize', () => {
    const steps = readPreprocessorConfig({
      image_processor_type: 'CLIPImageProcessor',
      size: { shortest_edge: 224 },
      do_center_crop: true,
      crop_size: { height: 224, width: 200 },
    });
    expect(pixelValuesGeometry(steps)).toEqual({ channels: 3, height: 224, width: 200 });
  });

  it('is unknown when the size follows the image', () => {
    const steps = readPreprocessorConfig({
      image_processor_type: 'ViTImageProcessor',
      size: { shortest_edge: 224 },
    });
    expect(pixelValuesGeometry(steps)).toBeUndefined();
  });
});
