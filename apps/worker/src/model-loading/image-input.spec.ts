import { describe, expect, it } from 'vitest';
import { resolveImageDims } from './image-input.js';

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
