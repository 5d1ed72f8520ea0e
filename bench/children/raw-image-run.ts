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
import { NOISY_OTHER_CORES, machineBusyCpuMs, waitForQuietMachine } from '../process-cpu.js';
import { summarizeLatencies } from '../stats.js';
import { type RawBatchResult } from './raw-session-run.js';

/** Settings from the parent. */
export interface RawImageRunConfig {
  fixtureDir: string;
  /** 0 = onnxruntime's default (one thread per core). */
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
const session = await ort.InferenceSession.create(join(config.fixtureDir, 'onnx', 'model.onnx'), {
  executionProviders: ['cpu'],
  graphOptimizationLevel: 'all',
  ...(config.intraOpThreads > 0 ? { intraOpNumThreads: config.intraOpThreads } : {}),
  extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
  logSeverityLevel: 3,
});
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

async function runFor(
  seconds: number,
  feeds: Record<string, ort.Tensor>[],
  latencies?: number[],
): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let runs = 0;
  while (performance.now() < end) {
    const started = performance.now();
    await session.run(feeds[runs % feeds.length] ?? {});
    latencies?.push(performance.now() - started);
    runs++;
  }
  return runs;
}

/** One timed pass over `feeds`, with the CPU other processes used meanwhile. */
async function measureBatch(size: number, feeds: Record<string, ort.Tensor>[]): Promise<RawBatchResult> {
  const latencies: number[] = [];
  const machineBefore = machineBusyCpuMs();
  const ownBefore = process.cpuUsage();
  const started = performance.now();
  const runs = await runFor(config.durationS, feeds, latencies);
  const elapsedMs = performance.now() - started;
  const own = process.cpuUsage(ownBefore);
  const ownMs = (own.user + own.system) / 1000;
  const otherMs = machineBusyCpuMs() - machineBefore - ownMs;
  return {
    batchSize: size,
    runs,
    inferPerSec: (runs * size) / (elapsedMs / 1000),
    latency: summarizeLatencies(latencies),
    cpuMsPerRow: ownMs / (runs * size),
    otherCores: Math.max(0, otherMs) / elapsedMs,
    attempts: 1,
  };
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

const batches: RawBatchResult[] = [];
for (const size of config.batchSizes) {
  const feeds = buildFeeds(size);
  await runFor(config.warmupS, feeds);
  let result = await measureBatch(size, feeds);
  if (result.otherCores > NOISY_OTHER_CORES) {
    await waitForQuietMachine(30_000);
    const again = await measureBatch(size, feeds);
    result = { ...(again.otherCores < result.otherCores ? again : result), attempts: 2 };
  }
  batches.push(result);
}
const result: RawImageRunResult = {
  intraOpThreads: config.intraOpThreads,
  batches,
  pixelDims: [...(pixels[0]?.dims ?? [])],
  meanImageBytes: jpegs.reduce((sum, jpeg) => sum + jpeg.length, 0) / jpegs.length,
  preprocessCpuMsPerImage: await timePreprocessing(Math.min(1, config.durationS)),
};
await session.release();
reportResult(result);
