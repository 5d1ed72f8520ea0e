/**
 * The results page's deployment-mode sections: the pinned split and the mixed-length workload.
 * Ranges are median (min–max) over the interleaved rounds; other cells are the median repeat.
 */
import {
  type BenchResults,
  type MixedRound,
  type PinnedResult,
  type PinnedRound,
  failedRequests,
  medianRawBatches,
  medianSteps,
  overRounds,
  paddingWaste,
  wasSkipped,
} from './bench-results.js';
import { type StepResult } from './load-step.js';
import { fmt, spreadCell, table } from './report-format.js';

const perRequest = (step: StepResult, party: string): string =>
  fmt((step.cpu.byParty[party] ?? NaN) / Math.max(1, step.load.ok), 3);

const affinityText = (lists: Record<string, number>): string =>
  Object.entries(lists)
    .map(([cpus, threads]) => `${threads} threads on CPU ${cpus}`)
    .join(', ') || 'n/a';

export function pinnedSection(results: BenchResults): string {
  const pinned = results.pinned;
  if (pinned === undefined) return '';
  const title = '## Pinned split (issue 11): worker alone on one core, gateway on the other';
  if (wasSkipped(pinned)) return [title, '', `Skipped: ${pinned.skipped}.`].join('\n');
  const { rounds } = pinned;
  const series = (pick: (r: PinnedRound) => StepResult) => medianSteps(rounds, (r) => [pick(r)]);
  const all = (pick: (r: PinnedRound) => StepResult) => rounds.map(pick);
  const rows = [
    { name: 'worker alone (gRPC)', pick: (r: PinnedRound) => r.worker },
    { name: 'gateway + worker (HTTP)', pick: (r: PinnedRound) => r.gateway },
  ].flatMap(({ name, pick }) =>
    series(pick).map((s) => [
      name,
      String(s.load.concurrency),
      spreadCell(
        overRounds(rounds, (r) => pick(r).load.throughput),
        1,
      ),
      spreadCell(
        overRounds(rounds, (r) => pick(r).load.throughput / r.raw.best.inferPerSec),
        2,
        '×',
      ),
      fmt(s.load.latency.p50),
      fmt(s.load.latency.p99),
      fmt(s.worker?.meanBatchRows),
      perRequest(s, 'worker'),
      s.cpu.byParty.gateway === undefined
        ? '-'
        : spreadCell(
            overRounds(all(pick), (x) => (x.cpu.byParty.gateway ?? NaN) / x.load.ok),
            3,
          ),
      perRequest(s, 'load generator'),
      String(all(pick).reduce((sum, x) => sum + failedRequests(x), 0)),
    ]),
  );
  const raw = medianRawBatches(rounds);
  return [
    title,
    '',
    `Worker (intraOpThreads 1, its own model \`${results.meta.deployment.model}-pinned\`) and raw session.run on CPU ` +
      `${pinned.workerCpus}; gateway (GATEWAY_WORKERS=1) and every load generator on CPU ${pinned.gatewayCpus}. ` +
      `Read back from /proc after pinning: worker ${affinityText(pinned.affinity.worker)}; gateway ` +
      `${affinityText(pinned.affinity.gateway)}.`,
    '',
    table(
      ['raw session.run, 1 thread, CPU ' + pinned.workerCpus, ...raw.map((b) => `batch ${b.batchSize}`)],
      [
        [
          'infer/s',
          ...raw.map((b) =>
            spreadCell(
              overRounds(rounds, (r) => r.raw.batches.find((x) => x.batchSize === b.batchSize)?.inferPerSec),
              1,
            ),
          ),
        ],
        ['run p50 ms', ...raw.map((b) => fmt(b.latency.p50))],
      ],
    ),
    '',
    table(
      [
        'step',
        'c',
        'infer/s',
        '× raw best (same core)',
        'p50 ms',
        'p99 ms',
        'rows/batch',
        'worker CPU ms/req',
        'gateway CPU ms/req',
        'load gen CPU ms/req',
        'failed',
      ],
      rows,
    ),
    ...capacityLines(pinned),
  ].join('\n');
}

/** The capacity step's table: the gateway alone on its core near its own limit. */
function capacityLines(pinned: PinnedResult): string[] {
  const setup = pinned.capacity;
  const steps = pinned.rounds.flatMap((r) => (r.capacity === undefined ? [] : [r.capacity]));
  const median = medianSteps(pinned.rounds, (r) => (r.capacity === undefined ? [] : [r.capacity]))[0];
  if (setup === undefined || median === undefined) return [];
  const gatewayCpu = (step: StepResult) => step.cpu.byParty.gateway ?? NaN;
  return [
    '',
    `Gateway capacity: the gateway (GATEWAY_WORKERS=1) alone on CPU ${pinned.gatewayCpus}, in front of a worker ` +
      `serving the small \`${setup.fixture}\` (same WordPiece vocabulary and sentences; the schema's default batching, maxBatchSize 32, as a fast device would batch) on CPU ${pinned.workerCpus}, ` +
      `with the load generator beside the worker. At the model's rate above, each arriving request wakes an idle ` +
      `event loop, which this VM charges dearly; here requests keep the gateway's core busy, as they would a ` +
      `gateway carrying several workers' traffic. "requests/s per gateway core" = requests/s ÷ the gateway's busy cores.`,
    '',
    table(
      [
        'step',
        'c',
        'requests/s',
        'gateway CPU ms/req',
        'gateway busy cores',
        'requests/s per gateway core',
        'p50 ms',
        'p99 ms',
        'worker CPU ms/req',
        'load gen CPU ms/req',
        'failed',
      ],
      [
        [
          'gateway capacity (HTTP, small model)',
          String(setup.concurrency),
          spreadCell(
            overRounds(steps, (x) => x.load.throughput),
            0,
          ),
          spreadCell(
            overRounds(steps, (x) => gatewayCpu(x) / x.load.ok),
            3,
          ),
          spreadCell(
            overRounds(steps, (x) => gatewayCpu(x) / x.cpu.wallMs),
            2,
          ),
          spreadCell(
            overRounds(steps, (x) => (1000 * x.load.ok) / gatewayCpu(x)),
            0,
          ),
          fmt(median.load.latency.p50),
          fmt(median.load.latency.p99),
          perRequest(median, 'worker'),
          perRequest(median, 'load generator'),
          String(steps.reduce((sum, x) => sum + failedRequests(x), 0)),
        ],
      ],
    ),
  ];
}

/** Real tokens per second of a gRPC step (the load generator's count of answered tokens). */
const realTokensPerSec = (step: StepResult): number | undefined =>
  step.load.okTokens === undefined ? undefined : step.load.okTokens / step.load.durationS;

export function mixedSection(results: BenchResults): string {
  const mixed = results.mixed;
  if (mixed === undefined) return '';
  const title = '## Mixed lengths (issue 11): padding waste, length-aware batching vs pad-to-longest';
  if (wasSkipped(mixed)) return [title, '', `Skipped: ${mixed.skipped}.`].join('\n');
  const { rounds, texts } = mixed;
  const systems: { name: string; ratio: string; pick: (r: MixedRound) => StepResult }[] = [
    {
      name: 'modelgate (length-aware)',
      ratio: String(mixed.maxPaddingRatio.modelgate),
      pick: (r) => r.modelgate,
    },
    {
      name: 'pad-to-longest (FIFO)',
      ratio: String(mixed.maxPaddingRatio.padToLongest),
      pick: (r) => r.padToLongest,
    },
  ];
  const counters = rounds.some((r) => paddingWaste(r.modelgate) !== undefined);
  return [
    title,
    '',
    `${texts.count} texts of ${texts.minTokens}–${texts.maxTokens} tokens (geometric spread, mean ${fmt(texts.meanTokens, 1)}; ` +
      "[CLS]/[SEP] included), built from the bench sentences' words and checked with the fixture's tokenizer; one " +
      `text per ModelInfer call at c=${mixed.concurrency}, straight at each worker. Both workers run the same model; ` +
      `pad-to-longest is batching.maxPaddingRatio ${mixed.maxPaddingRatio.padToLongest} (no length grouping: FIFO batches ` +
      'padded to their longest row). Padding waste = tokens computed (rows × padded length) ÷ real tokens, from the ' +
      "worker's modelgate_batch_tokens_total over each step.",
    ...(counters
      ? []
      : ['', '**Padding waste n/a**: the worker does not expose `modelgate_batch_tokens_total` yet.']),
    '',
    table(
      [
        'system',
        'maxPaddingRatio',
        'padding waste',
        'infer/s',
        'real tokens/s',
        'rows/batch',
        'compute ms/batch',
        'p50 ms',
        'p99 ms',
        'failed',
      ],
      systems.flatMap(({ name, ratio, pick }) =>
        medianSteps(rounds, (r) => [pick(r)]).map((s) => [
          name,
          ratio,
          spreadCell(
            overRounds(rounds, (r) => paddingWaste(pick(r))),
            2,
            '×',
          ),
          spreadCell(
            overRounds(rounds, (r) => pick(r).load.throughput),
            1,
          ),
          spreadCell(
            overRounds(rounds, (r) => realTokensPerSec(pick(r))),
            0,
          ),
          fmt(s.worker?.meanBatchRows),
          fmt(s.worker?.meanComputeMsPerBatch),
          fmt(s.load.latency.p50),
          fmt(s.load.latency.p99),
          String(rounds.reduce((sum, r) => sum + failedRequests(pick(r)), 0)),
        ]),
      ),
    ),
  ].join('\n');
}
