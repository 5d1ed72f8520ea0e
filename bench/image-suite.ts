/**
 * Image classification (issue 18): infer/s at concurrency 1, 8 and 32 of raw JPEG bodies sent to
 * modelgate's POST /serve/<endpoint> (the gateway decodes, resizes and normalises each image from
 * the model's preprocessor_config.json; the worker batches the pixel values) against raw
 * session.run on the same images' pixel values at batch 1, 2, 4, 8 and 32, in interleaved rounds.
 * Reports the gateway's CPU per request (decoding and resizing are its work) and the worker's
 * mean batch size.
 */
import { ensureFixture } from '@modelgate/fixtures';
import { type BenchOptions } from './bench-options.js';
import { type ImageResult, type ImageRound, bestBatch, gatewayCpuMsPerRequest } from './bench-results.js';
import { childScript, runChild } from './child-process.js';
import { type RawImageRunConfig, type RawImageRunResult } from './children/raw-image-run.js';
import { type ControlPlane, type Deployment } from './control-plane.js';
import { IMAGE_WORKLOAD, imageJpegs } from './image-workload.js';
import { type StepResult } from './load-step.js';
import { type ModelgateStack, startModelgate } from './modelgate-stack.js';
import { measureModelgateStep } from './suites.js';

/** The bench's image model: a tiny ViT (pixel_values [n,3,224,224] → logits [n,5]). */
export const IMAGE_FIXTURE = 'tiny-vit';
/** Concurrencies of modelgate's steps. */
const IMAGE_CONCURRENCIES = [1, 8, 32];
/** Measured seconds per raw batch size, at most: even batch 32 (~12 ms a run) runs 250 times in 3 s. */
const MAX_RAW_STEP_S = 3;
/** Raw batch sizes: modelgate's preferred sizes, and 32 to show what a larger cap would give. */
const RAW_BATCH_SIZES = [1, 2, 4, 8, 32];
const QUICK_RAW_BATCH_SIZES = [1, 8];
/**
 * The image model's batching, as the BLIP-on-Triton case: batches of 1, 2, 4 or 8 images, never
 * more (maxBatchSize 8; a batch of 32 would hold 19 MB of pixel values). On tiny-vit raw
 * session.run's b8 and b32 were within the busy 2-core VM's noise of each other (b32 won one pass,
 * lost another); the raw sweep keeps 32, so the report shows what a larger cap would leave.
 */
const IMAGE_BATCHING = { maxBatchSize: 8, preferredBatchSizes: [1, 2, 4, 8] };

/** The image deployment beside the others: its own model, worker group and endpoint. */
export function imageDeployment(options: BenchOptions): Deployment {
  return {
    fixture: IMAGE_FIXTURE,
    model: 'vit',
    workerGroup: 'image',
    endpoint: 'classify-image',
    task: 'image-classification',
    batching: IMAGE_BATCHING,
    intraOpThreads: options.intraOpThreads,
    instances: 1,
  };
}

async function measureRaw(options: BenchOptions, fixtureDir: string): Promise<ImageRound['raw']> {
  const config: RawImageRunConfig = {
    fixtureDir,
    intraOpThreads: options.intraOpThreads,
    batchSizes: options.quick ? QUICK_RAW_BATCH_SIZES : RAW_BATCH_SIZES,
    durationS: Math.min(options.durationS, MAX_RAW_STEP_S),
    warmupS: Math.min(1, options.warmupS),
    images: IMAGE_WORKLOAD,
  };
  const raw = await runChild<RawImageRunResult>(childScript('raw-image-run.ts'), config);
  const best = bestBatch(raw.batches);
  if (!best) throw new Error('raw session.run measured no batch size');
  process.stdout.write(
    `  ${'(a) raw session.run (images)'.padEnd(28)} ${raw.batches
      .map((b) => `b${b.batchSize} ${b.inferPerSec.toFixed(1)}/s p50 ${b.latency.p50.toFixed(2)} ms`)
      .join(' · ')}  → best batch ${best.batchSize}; preprocessing ` +
      `${raw.preprocessCpuMsPerImage.toFixed(2)} ms CPU per image\n`,
  );
  return { ...raw, best };
}

export async function runImageSuite(options: BenchOptions, plane: ControlPlane): Promise<ImageResult> {
  const fixtureDir = await ensureFixture(IMAGE_FIXTURE);
  const jpegs = await imageJpegs(IMAGE_WORKLOAD);
  const meanBytes = jpegs.reduce((sum, jpeg) => sum + jpeg.length, 0) / jpegs.length;
  const deployment = imageDeployment(options);
  process.stdout.write(
    `image classification: ${jpegs.length} JPEGs of ${IMAGE_WORKLOAD.width}×${IMAGE_WORKLOAD.height} ` +
      `(${(meanBytes / 1024).toFixed(1)} KB mean) as raw bodies; batching ${JSON.stringify(IMAGE_BATCHING)}; ` +
      `modelgate at c=${IMAGE_CONCURRENCIES.join(', ')}; ${options.durationS} s steps, ${options.repeats} rounds\n`,
  );
  let stack: ModelgateStack | undefined;
  try {
    const running = await startModelgate(plane, deployment, {
      gatewayWorkers: options.gatewayWorkers,
      warmUpBody: { image: (jpegs[0] ?? Buffer.alloc(0)).toString('base64') },
    });
    stack = running;
    const rounds: ImageRound[] = [];
    for (let index = 0; index < options.repeats; index++) {
      process.stdout.write(`round ${index + 1}/${options.repeats}\n`);
      // Alternate which goes first, so neither always runs on a machine the other just warmed.
      const modelgateFirst = index % 2 === 1;
      const steps = async (): Promise<StepResult[]> => {
        const measured: StepResult[] = [];
        for (const c of IMAGE_CONCURRENCIES) {
          const step = await measureModelgateStep(options, running, c, {
            system: 'modelgate (image)',
            images: IMAGE_WORKLOAD,
          });
          process.stdout.write(
            `    gateway CPU ${gatewayCpuMsPerRequest(step).toFixed(2)} ms per request, ` +
              `${step.worker?.meanBatchRows.toFixed(2) ?? 'n/a'} images per batch\n`,
          );
          measured.push(step);
        }
        return measured;
      };
      const modelgate = modelgateFirst ? await steps() : undefined;
      const raw = await measureRaw(options, fixtureDir);
      rounds.push({ raw, modelgate: modelgate ?? (await steps()) });
    }
    return {
      fixture: IMAGE_FIXTURE,
      batching: IMAGE_BATCHING,
      images: { count: jpegs.length, width: IMAGE_WORKLOAD.width, height: IMAGE_WORKLOAD.height, meanBytes },
      rounds,
    };
  } finally {
    await stack?.stop();
  }
}
