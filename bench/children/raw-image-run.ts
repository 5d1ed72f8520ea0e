/**
 * The image-classification limit: onnxruntime-node `session.run` on the bench images' pixel_values
 * in a process of its own, with the worker's session settings (graph optimisation `all`, spinning
 * off, the ModelSpec's intra-op threads), at every batch size. The images are decoded and
 * preprocessed once, up front, by the gateway's own processor (the model's
 * preprocessor_config.json); that preprocessing is also timed alone, per image on one core.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { type PixelValues, loadImageProcessor } from '@modelgate/processing';
import { readChildConfig, reportResult } from '../child-process.js';
import { type ImageWorkload, imageJpegs } from '../image-workload.js';
import { type RawBatchResult, measureBatches, openRawSession } from './raw-session-loop.js';

/** Settings from the parent. */
export interface RawImageRunConfig {
  fixtureDir: string;
  /** 0 = one thread per core. */
  intraOpThreads: number;
  batchSizes: number[];
  durationS: number;
  warmupS: number;
  images: ImageWorkload;
}

/** What the child reports. */
export interface RawImageRunResult {
  intraOpThreads: number;
  batches: RawBatchResult[];
  /** One image's pixel_values, [3, H, W]. */
  pixelDims: number[];
  /** Mean JPEG size of the workload, bytes. */
  meanImageBytes: number;
  /** Decode + resize + normalise of one image (the gateway's processor), CPU ms on one core. */
  preprocessCpuMsPerImage: number;
}

const config = readChildConfig<RawImageRunConfig>();
const processor = loadImageProcessor(
  JSON.parse(await readFile(join(config.fixtureDir, 'preprocessor_config.json'), 'utf8')),
);
const jpegs = await imageJpegs(config.images);
const pixels: PixelValues[] = [];
for (const jpeg of jpegs) pixels.push(await processor.process(jpeg));
const session = await openRawSession(join(config.fixtureDir, 'onnx', 'model.onnx'), config.intraOpThreads);
const inputName = session.inputNames[0] ?? 'pixel_values';

/** The feeds of consecutive `size`-image slices over the images (as the worker stacks rows). */
function buildFeeds(size: number): Record<string, ort.Tensor>[] {
  return pixels.map((_, window) => {
    const rows = Array.from({ length: size }, (_, i) => pixels[(window * size + i) % pixels.length]);
    const [, height, width] = rows[0]?.dims ?? [3, 0, 0];
    const per = 3 * height * width;
    const data = new Float32Array(size * per);
    rows.forEach((row, i) => data.set(row?.data ?? [], i * per));
    return { [inputName]: new ort.Tensor('float32', data, [size, 3, height, width]) };
  });
}

/** CPU ms per image of the gateway's preprocessing, one image at a time. */
async function timePreprocessing(seconds: number): Promise<number> {
  const end = performance.now() + seconds * 1000;
  const before = process.cpuUsage();
  let images = 0;
  while (performance.now() < end) {
    await processor.process(jpegs[images % jpegs.length] ?? Buffer.alloc(0));
    images++;
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / images;
}

const batches = await measureBatches(session, config.batchSizes, buildFeeds, config);
const result: RawImageRunResult = {
  intraOpThreads: config.intraOpThreads,
  batches,
  pixelDims: [...(pixels[0]?.dims ?? [])],
  meanImageBytes: jpegs.reduce((sum, jpeg) => sum + jpeg.length, 0) / jpegs.length,
  preprocessCpuMsPerImage: await timePreprocessing(Math.min(1, config.durationS)),
};
await session.release();
reportResult(result);
