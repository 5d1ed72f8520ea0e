// Our image preprocessing against the reference (DESIGN §5): transformers.js' AutoImageProcessor,
// loaded from a directory holding the same preprocessor_config.json and fed the same encoded
// bytes, must give the same pixel_values (1e-4) for JPEG, PNG and WebP, gray and RGBA inputs, an
// EXIF-rotated JPEG, and ViT-, CLIP- and BLIP-like configs. Images are generated here with sharp.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoImageProcessor, LogLevel, RawImage, env } from '@huggingface/transformers';
import sharp, { type Sharp } from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadImageProcessor, parseImageRequest } from '../src/index.js';

const TOLERANCE = 1e-4;
const CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073];
const CLIP_STD = [0.26862954, 0.26130258, 0.27577711];

const CONFIGS: Record<string, Record<string, unknown>> = {
  'vit-224-bilinear': {
    image_processor_type: 'ViTImageProcessor',
    do_resize: true,
    size: { height: 224, width: 224 },
    resample: 2,
    do_rescale: true,
    rescale_factor: 1 / 255,
    do_normalize: true,
    image_mean: [0.5, 0.5, 0.5],
    image_std: [0.5, 0.5, 0.5],
  },
  'clip-224-bicubic-crop': {
    image_processor_type: 'CLIPImageProcessor',
    processor_class: 'CLIPProcessor',
    do_resize: true,
    size: { shortest_edge: 224 },
    resample: 3,
    do_center_crop: true,
    crop_size: { height: 224, width: 224 },
    do_rescale: true,
    rescale_factor: 0.00392156862745098,
    do_normalize: true,
    image_mean: CLIP_MEAN,
    image_std: CLIP_STD,
    do_convert_rgb: true,
  },
  'blip-384-bicubic': {
    image_processor_type: 'BlipImageProcessor',
    processor_class: 'BlipProcessor',
    do_resize: true,
    size: { height: 384, width: 384 },
    resample: 3,
    do_rescale: true,
    rescale_factor: 0.00392156862745098,
    do_normalize: true,
    image_mean: CLIP_MEAN,
    image_std: CLIP_STD,
    do_convert_rgb: true,
  },
  // An int size (transformers.js: shortest edge = longest edge = n), nearest, scalar mean/std.
  'vit-int-size-nearest': {
    feature_extractor_type: 'ViTFeatureExtractor',
    size: 96,
    resample: 0,
    do_normalize: true,
    image_mean: 0.5,
    image_std: 0.25,
  },
  // Lanczos, shortest and longest edge, an int crop_size.
  'lanczos-edges-crop': {
    image_processor_type: 'CLIPImageProcessorFast',
    size: { shortest_edge: 80, longest_edge: 120 },
    resample: 1,
    do_center_crop: true,
    crop_size: 64,
    do_normalize: false,
  },
  // A crop larger than the resized image on both axes: black padding, odd margins.
  'padded-crop': {
    image_processor_type: 'DeiTImageProcessor',
    size: { shortest_edge: 40, longest_edge: 56 },
    resample: 3,
    do_center_crop: true,
    crop_size: { height: 71, width: 60 },
    do_normalize: true,
    image_mean: [0.485, 0.456, 0.406],
    image_std: [0.229, 0.224, 0.225],
  },
  // No resize: the decoded, upright image itself.
  'rescale-only': {
    feature_extractor_type: 'ViTFeatureExtractor',
    do_resize: false,
    do_normalize: false,
  },
  // BGR output without normalization (MobileViT).
  'mobilevit-flip': {
    image_processor_type: 'MobileViTImageProcessor',
    size: { shortest_edge: 64 },
    resample: 2,
    do_center_crop: true,
    crop_size: { height: 64, width: 64 },
    do_flip_channel_order: true,
    do_normalize: false,
  },
};

/** A seeded RGB gradient with noise, so every filter tap matters. */
function texture(width: number, height: number, channels: 3 | 4, seed: number): Buffer {
  const data = Buffer.alloc(width * height * channels);
  let state = seed;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const at = (y * width + x) * channels;
      for (let c = 0; c < channels; c += 1) {
        state = (state * 1664525 + 1013904223) >>> 0;
        const gradient =
          c === 0 ? (x * 255) / width : c === 1 ? (y * 255) / height : ((x + y) * 127) / (width + height);
        data[at + c] = Math.min(255, Math.max(0, Math.round(gradient + ((state >>> 24) % 64) - 32)));
      }
    }
  }
  return data;
}

const raw = (width: number, height: number, channels: 3 | 4, seed: number): Sharp =>
  sharp(texture(width, height, channels, seed), { raw: { width, height, channels } });

async function makeImages(): Promise<Record<string, Buffer>> {
  return {
    'jpeg 97×61': await raw(97, 61, 3, 1).jpeg({ quality: 90 }).toBuffer(),
    'png 640×480': await raw(640, 480, 3, 2).png().toBuffer(),
    'webp lossy 150×200': await raw(150, 200, 3, 3).webp({ quality: 80 }).toBuffer(),
    'webp lossless 33×47': await raw(33, 47, 3, 4).webp({ lossless: true }).toBuffer(),
    'gray png 120×90': await raw(120, 90, 3, 5).toColourspace('b-w').png().toBuffer(),
    'gray jpeg 64×100': await raw(64, 100, 3, 6).toColourspace('b-w').jpeg().toBuffer(),
    'rgba png 80×60': await raw(80, 60, 4, 7).png().toBuffer(),
    'jpeg exif orientation 6 160×90': await raw(160, 90, 3, 8)
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer(),
    'jpeg exif orientation 3 70×50': await raw(70, 50, 3, 9)
      .jpeg()
      .withMetadata({ orientation: 3 })
      .toBuffer(),
    'png 224×224 (no resize)': await raw(224, 224, 3, 10).png().toBuffer(),
  };
}

env.allowRemoteModels = false;
env.allowLocalModels = true;
// transformers.js does not know BlipImageProcessor and says so on every load; it runs the base class.
env.logLevel = LogLevel.ERROR;

let root: string;
let images: Record<string, Buffer>;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'image-parity-'));
  for (const [name, config] of Object.entries(CONFIGS)) {
    await mkdir(join(root, name));
    await writeFile(join(root, name, 'preprocessor_config.json'), JSON.stringify(config));
  }
  env.localModelPath = root;
  images = await makeImages();
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function reference(name: string, bytes: Buffer): Promise<{ data: Float32Array; dims: number[] }> {
  const processor = await AutoImageProcessor.from_pretrained(name, { local_files_only: true });
  const image = await RawImage.fromBlob(new Blob([new Uint8Array(bytes)]));
  const { pixel_values } = (await processor(image)) as {
    pixel_values: { data: Float32Array; dims: number[] };
  };
  return pixel_values;
}

function maxAbsDifference(ours: Float32Array, theirs: Float32Array): number {
  let worst = 0;
  for (let index = 0; index < ours.length; index += 1) {
    worst = Math.max(worst, Math.abs((ours[index] ?? 0) - (theirs[index] ?? 0)));
  }
  return worst;
}

describe.each(Object.keys(CONFIGS))('pixel values of %s', (name) => {
  it.each([
    'jpeg 97×61',
    'png 640×480',
    'webp lossy 150×200',
    'webp lossless 33×47',
    'gray png 120×90',
    'gray jpeg 64×100',
    'rgba png 80×60',
    'jpeg exif orientation 6 160×90',
    'jpeg exif orientation 3 70×50',
    'png 224×224 (no resize)',
  ])('match transformers.js for %s', async (imageName) => {
    const bytes = images[imageName];
    if (bytes === undefined) throw new Error(`no image ${imageName}`);
    const ours = await loadImageProcessor(CONFIGS[name]).process(bytes);
    const theirs = await reference(name, bytes);
    expect([1, ...ours.dims]).toEqual(theirs.dims);
    expect(maxAbsDifference(ours.data, theirs.data)).toBeLessThanOrEqual(TOLERANCE);
  });
});

describe('request forms', () => {
  it('gives the same pixels for base64, a data URL and a raw body', async () => {
    const bytes = images['webp lossy 150×200'];
    if (bytes === undefined) throw new Error('no image');
    const processor = loadImageProcessor(CONFIGS['clip-224-bicubic-crop']);
    const limits = { maxImageBytes: 1 << 20, maxImagePixels: 1 << 20 };
    const forms = [
      { contentType: 'application/json', body: { image: bytes.toString('base64') } },
      {
        contentType: 'application/json',
        body: { image: `data:image/webp;base64,${bytes.toString('base64')}` },
      },
      { contentType: 'image/webp', body: new Uint8Array(bytes) },
    ];
    const outputs = await Promise.all(
      forms.map(async (form) => (await processor.process(parseImageRequest(form, limits).bytes)).data),
    );
    expect(outputs[1]).toEqual(outputs[0]);
    expect(outputs[2]).toEqual(outputs[0]);
  });

  it('turns an EXIF orientation 6 image upright (160×90 stored, 90×160 processed)', async () => {
    const bytes = images['jpeg exif orientation 6 160×90'];
    if (bytes === undefined) throw new Error('no image');
    const { dims } = await loadImageProcessor(CONFIGS['rescale-only']).process(bytes);
    expect(dims).toEqual([3, 160, 90]);
  });

  it('reads gray + alpha (which transformers.js cannot) as the same image without its alpha', async () => {
    const gray = texture(50, 40, 3, 11).filter((_, index) => index % 3 === 0);
    const alpha = Buffer.alloc(gray.length * 2);
    gray.forEach((value, index) => {
      alpha[index * 2] = value;
      alpha[index * 2 + 1] = (index * 7) % 256;
    });
    const withAlpha = await sharp(alpha, { raw: { width: 50, height: 40, channels: 2 } })
      .toColourspace('b-w')
      .png()
      .toBuffer();
    const withoutAlpha = await sharp(withAlpha).removeAlpha().toColourspace('b-w').png().toBuffer();
    expect((await sharp(withAlpha).metadata()).channels).toBe(2);
    const ours = await loadImageProcessor(CONFIGS['clip-224-bicubic-crop']).process(withAlpha);
    const theirs = await reference('clip-224-bicubic-crop', withoutAlpha);
    expect(maxAbsDifference(ours.data, theirs.data)).toBeLessThanOrEqual(TOLERANCE);
  });

  it('refuses a decompression bomb from its header, before decoding (413)', async () => {
    const bomb = Buffer.from(images['png 640×480'] ?? []);
    bomb.writeUInt32BE(100_000, 16);
    bomb.writeUInt32BE(100_000, 20);
    await expect(loadImageProcessor(CONFIGS['vit-224-bilinear']).process(bomb)).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
    });
  });

  it('answers 400 for a truncated image whose header is intact', async () => {
    const bytes = images['png 640×480'];
    if (bytes === undefined) throw new Error('no image');
    const processor = loadImageProcessor(CONFIGS['vit-224-bilinear']);
    await expect(processor.process(new Uint8Array(bytes.subarray(0, 200)))).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});
