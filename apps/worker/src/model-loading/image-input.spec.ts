import { describe, expect, it } from 'vitest';
import { resolveImageDims } from './image-input.js';
import { warmUpFeeds } from './warm-up.js';

describe('resolveImageDims', () => {
  const facts = { channels: 3, height: 384, width: 384 };

  it("fills an Optimum export's dynamic image dims from the image processor's size", () => {
    expect(resolveImageDims([-1, -1, -1, -1], facts)).toEqual([3, 384, 384]);
    expect(resolveImageDims([-1, 3, -1, -1], facts)).toEqual([3, 384, 384]);
  });

  it('keeps static dims that agree, and dynamic ones when the size follows the image', () => {
    expect(resolveImageDims([-1, 3, 384, 384], facts)).toEqual([3, 384, 384]);
    expect(resolveImageDims([-1, 3, -1, -1], undefined)).toEqual([3, -1, -1]);
  });

  it('says so when the graph and the image processor disagree', () => {
    expect(resolveImageDims([-1, 3, 224, 224], facts)).toBe(
      'the image processor (preprocessor_config.json) makes 3×384×384 pixel_values but the graph takes 3×224×224',
    );
  });
});

describe('warmUpFeeds of an image graph', () => {
  it('sizes dynamic pixel_values as the image processor does, other dynamic dims as before', () => {
    const feeds = warmUpFeeds(
      [
        { name: 'pixel_values', datatype: 'FP32', dims: [-1, 3, -1, -1] },
        { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] },
      ],
      [3, 32, 48],
    );
    expect(feeds?.pixel_values?.dims).toEqual([1, 3, 32, 48]);
    expect(feeds?.pixel_values?.data).toHaveLength(3 * 32 * 48);
    expect(feeds?.input_ids?.dims).toEqual([1, 8]);
  });
});
