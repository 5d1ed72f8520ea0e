/**
 * The image-classification workload, built the same way by the suite and by the children it
 * starts (their configs travel in one environment variable, too small for the images): a few
 * deterministic JPEGs of gradients and seeded noise, not the model's size (the gateway resizes).
 */
import sharp from 'sharp';

/** How the children rebuild the workload. */
export interface ImageWorkload {
  count: number;
  width: number;
  height: number;
  /** JPEG quality, 1–100. */
  quality: number;
}

/** The bench's images: 8 JPEGs of 320×240, 4–9 KB each. */
export const IMAGE_WORKLOAD: ImageWorkload = { count: 8, width: 320, height: 240, quality: 80 };

/** A small deterministic generator (mulberry32), so the noise is the same in every process. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Image `index`: horizontal and vertical gradients in two channels, seeded noise in the third. */
function imagePixels(workload: ImageWorkload, index: number): Buffer {
  const { width, height } = workload;
  const random = seeded(index + 1);
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 3;
      data[at] = Math.floor(((x + index * 37) % width) * (255 / width));
      data[at + 1] = Math.floor((y * 255) / height);
      data[at + 2] = Math.floor(random() * 16) + ((x * (index + 1) + y) % 192);
    }
  }
  return data;
}

/** The workload's JPEGs, in order. */
export function imageJpegs(workload: ImageWorkload): Promise<Buffer[]> {
  const { width, height, quality } = workload;
  return Promise.all(
    Array.from({ length: workload.count }, (_, index) =>
      sharp(imagePixels(workload, index), { raw: { width, height, channels: 3 } })
        .jpeg({ quality })
        .toBuffer(),
    ),
  );
}
