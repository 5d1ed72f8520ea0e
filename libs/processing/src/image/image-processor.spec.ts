import { ErrorCode } from '@modelgate/contracts';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { loadImageProcessor } from './image-processor.js';

/** A CLIP-style processor: the shortest side to 224, then a 224 center crop (no longest edge). */
const CLIP = {
  do_resize: true,
  size: { shortest_edge: 224 },
  resample: 3,
  do_center_crop: true,
  crop_size: 224,
  do_rescale: true,
  rescale_factor: 1 / 255,
  do_normalize: true,
  image_mean: [0.5, 0.5, 0.5],
  image_std: [0.5, 0.5, 0.5],
  do_convert_rgb: true,
};

const png = async (width: number, height: number): Promise<Uint8Array> =>
  new Uint8Array(
    await sharp({ create: { width, height, channels: 3, background: { r: 200, g: 10, b: 10 } } })
      .png()
      .toBuffer(),
  );

describe('loadImageProcessor', () => {
  it('refuses a thin image whose shortest-edge resize would exceed the pixel limit, before resizing', async () => {
    const processor = loadImageProcessor(CLIP);
    // 147 bytes that resize to 224×448000: this took seconds and hundreds of MB, and 1×50000 crashed.
    await expect(processor.process(await png(1, 2000))).rejects.toMatchObject({
      code: ErrorCode.PAYLOAD_TOO_LARGE,
      message:
        "image: 1×2000 resizes to 224×448000 for this model (its shortest side to the model's size), " +
        '100352000 pixels, over the limit of 40000000: send an image closer to square',
    });
    // An endpoint's tighter limit is about what clients send: the resize is held to the default one.
    const tight = loadImageProcessor(CLIP, { maxImageBytes: 1 << 20, maxImagePixels: 10_000 });
    expect((await tight.process(await png(40, 30))).dims).toEqual([3, 224, 224]);
    expect((await tight.process(await png(1, 100))).dims).toEqual([3, 224, 224]);
  });
});
