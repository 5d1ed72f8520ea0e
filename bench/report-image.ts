/**
 * The results page's image-classification section: modelgate serving raw JPEG bodies at c=1, 8
 * and 32 against raw session.run on the same images' pixel values, in images per second, with the
 * gateway's CPU per request (decode, resize, normalise) and the worker's mean batch. Ranges are
 * median (min–max) over the interleaved rounds; other cells are the median repeat.
 */
import {
  type BenchResults,
  type ImageRound,
  atConcurrency,
  failedRequests,
  gatewayCpuMsPerRequest,
  medianRawBatches,
  medianSteps,
  overRounds,
} from './bench-results.js';
import { type StepResult } from './load-step.js';
import { fmt, otherCell, spreadCell, table } from './report-format.js';

export function imageSection(results: BenchResults): string {
  const image = results.image;
  if (image === undefined) return '';
  const { rounds } = image;
  const first = rounds[0]?.raw;
  const raw = medianRawBatches(rounds);
  const steps = medianSteps(rounds, (r: ImageRound) => r.modelgate);
  const throughput = (r: ImageRound, c: number) => atConcurrency(r.modelgate, c)?.load.throughput;
  const gatewayCpu = (r: ImageRound, c: number) => {
    const step = atConcurrency(r.modelgate, c);
    return step ? gatewayCpuMsPerRequest(step) : undefined;
  };
  const workerCpu = (s: StepResult) => (s.cpu.byParty.worker ?? NaN) / s.load.ok;
  return [
    '## Image classification (issue 18)',
    '',
    `\`${image.fixture}\` (a tiny ViT, random weights; pixel_values [n, ${first?.pixelDims.join(', ') ?? '?'}]). ` +
      `${image.images.count} deterministic JPEGs of ${image.images.width}×${image.images.height} ` +
      `(${fmt(image.images.meanBytes / 1024, 1)} KB mean) sent as raw bodies (\`content-type: image/jpeg\`) ` +
      `to \`POST /serve/<endpoint>\`; the gateway decodes, resizes and normalises them from the model's ` +
      `preprocessor_config.json, the worker batches the pixel values (batching ${JSON.stringify(image.batching)}). ` +
      'Raw session.run runs the same images, preprocessed once up front by the same processor, in its own ' +
      `process with the worker's session options. The processor alone takes ${fmt(first?.preprocessCpuMsPerImage)} ms ` +
      'CPU per image on one core (round 1). Worker CPU per request against its compute per batch (both from the ' +
      "median repeat) says what the pixel values' trip to the worker costs besides the model.",
    '',
    table(
      [
        'system',
        'batch / c',
        'images/s',
        'p50 ms',
        'p99 ms',
        'images per batch',
        'gateway CPU ms/request',
        'worker CPU ms/request',
        'compute ms/batch',
        'failed',
        'other cores',
      ],
      [
        ...raw.map((b) => [
          'raw session.run',
          `b${b.batchSize}`,
          spreadCell(
            overRounds(rounds, (r) => r.raw.batches.find((x) => x.batchSize === b.batchSize)?.inferPerSec),
            1,
          ),
          fmt(b.latency.p50),
          fmt(b.latency.p99),
          String(b.batchSize),
          '-',
          `${fmt(b.cpuMsPerRow)} (per image)`,
          fmt(b.latency.mean),
          '-',
          otherCell(b.otherCores, b.attempts),
        ]),
        ...steps.map((s) => [
          'modelgate',
          `c=${s.load.concurrency}`,
          spreadCell(
            overRounds(rounds, (r) => throughput(r, s.load.concurrency)),
            1,
          ),
          fmt(s.load.latency.p50),
          fmt(s.load.latency.p99),
          fmt(s.worker?.meanBatchRows),
          spreadCell(
            overRounds(rounds, (r) => gatewayCpu(r, s.load.concurrency)),
            2,
          ),
          fmt(workerCpu(s)),
          fmt(s.worker?.meanComputeMsPerBatch),
          String(failedRequests(s)),
          otherCell(s.otherCores, s.attempts),
        ]),
      ],
    ),
    '',
    table(
      ['modelgate at', 'images/s ÷ raw best batch (same round)', 'raw best batch'],
      steps.map((s) => [
        `c=${s.load.concurrency}`,
        spreadCell(
          overRounds(rounds, (r) => (throughput(r, s.load.concurrency) ?? NaN) / r.raw.best.inferPerSec),
          3,
          '×',
        ),
        rounds.map((r) => `b${r.raw.best.batchSize}`).join(', '),
      ]),
    ),
  ].join('\n');
}
