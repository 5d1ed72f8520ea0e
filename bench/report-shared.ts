/**
 * The results page's shared-cores sections: (a) raw session.run, the concurrency ladder of (b) the
 * naive server and (c) modelgate, and the worker alone. Figures with a range are the median
 * (min–max) over the interleaved rounds, each ratio taken within its round; the other cells are
 * the repeat with the median throughput.
 */
import {
  type BenchResults,
  type SharedRound,
  atConcurrency,
  failedRequests,
  medianRawBatches,
  medianSteps,
  overRounds,
} from './bench-results.js';
import { type StepResult } from './load-step.js';
import { fmt, layoutLabel, otherCell, soloCell, spreadCell, table } from './report-format.js';
import { type Spread } from './stats.js';

type SeriesOf = (round: SharedRound) => StepResult[] | undefined;

const throughputAt = (series: SeriesOf, c: number) => (round: SharedRound) =>
  atConcurrency(series(round), c)?.load.throughput;

/** Throughput at `c` ÷ a reference taken in the same round, over the rounds. */
function ratioOverRounds(
  rounds: readonly SharedRound[],
  series: SeriesOf,
  c: number,
  reference: (round: SharedRound) => number | undefined,
): Spread {
  return overRounds(rounds, (round) => {
    const value = throughputAt(series, c)(round);
    const base = reference(round);
    return value !== undefined && base !== undefined && base > 0 ? value / base : undefined;
  });
}

/** Each round's raw best as `b32 (2 sessions × 1 thread)`, in round order. */
export function rawBestPerRound(rounds: readonly SharedRound[], cores: number): string {
  return rounds.map((r) => `b${r.raw.best.batchSize} (${layoutLabel(r.raw.bestLayout, cores)})`).join(', ');
}

export function rawSection(results: BenchResults): string {
  const rounds = results.shared?.rounds ?? [];
  const first = rounds[0]?.raw;
  if (first === undefined) return '';
  const cores = results.meta.cores;
  const single = { sessions: 1, intraOpThreads: first.intraOpThreads };
  const layouts = [
    { label: layoutLabel(single, cores), batchesOf: (r: SharedRound) => r.raw.batches },
    ...(first.sideBySide
      ? [
          {
            label: layoutLabel(first.sideBySide, cores),
            batchesOf: (r: SharedRound) => r.raw.sideBySide?.batches,
          },
        ]
      : []),
  ];
  const rows = layouts.flatMap(({ label, batchesOf }) =>
    medianRawBatches(rounds.map((r) => ({ raw: { batches: batchesOf(r) ?? [] } }))).map((b) => [
      label,
      String(b.batchSize),
      spreadCell(
        overRounds(rounds, (r) => batchesOf(r)?.find((x) => x.batchSize === b.batchSize)?.inferPerSec),
        1,
      ),
      fmt(b.latency.p50),
      fmt(b.latency.p99),
      fmt(b.latency.p50 / b.batchSize),
      fmt(b.cpuMsPerRow),
      fmt((cores * 1000) / b.cpuMsPerRow, 0),
      otherCell(b.otherCores, b.attempts),
    ]),
  );
  const best = overRounds(rounds, (r) => r.raw.best.inferPerSec);
  const layoutNote = first.sideBySide
    ? ` "${layouts[1]?.label ?? ''}" is the worker's layout (instances ${first.sideBySide.sessions}): as many processes ` +
      'started together, every batch size begun by all at once; infer/s summed, CPU per row = all their CPU ÷ all ' +
      "their rows, run p50/p99 the worse session's."
    : '';
  const defaultThreads =
    first.intraOpThreads === 0 ? ` One session's threads: one per core (intraOpThreads 0).` : '';
  return [
    '## (a) raw onnxruntime-node session.run (own process, pre-tokenized)',
    '',
    `Same batches and step lengths in every layout.${layoutNote}${defaultThreads}`,
    '',
    table(
      [
        'layout',
        'batch',
        'infer/s',
        'run p50 ms',
        'run p99 ms',
        'ms per row (p50)',
        'CPU ms per row',
        `CPU ceiling infer/s (${cores} cores)`,
        'other cores',
      ],
      rows,
    ),
    '',
    `Raw best per round (over batch sizes and layouts): ${rawBestPerRound(rounds, cores)} → ` +
      `**${spreadCell(best, 1)} infer/s**, the limit on this machine (each round's "× raw best" ratios use that ` +
      `round's best). The c=1 floor is one session's batch-1 p50. Tokenization alone (encodeInputs, one sentence): ` +
      `${fmt(first.tokenizePerSec, 0)} texts/s on one core.`,
  ].join('\n');
}

export function ladderSection(results: BenchResults): string {
  const rounds = results.shared?.rounds ?? [];
  const naive: SeriesOf = (r) => r.naive;
  const modelgate: SeriesOf = (r) => r.modelgate;
  const colocated: SeriesOf = (r) => r.colocated;
  if (!rounds.some((r) => r.naive ?? r.modelgate)) return '';
  const best = (r: SharedRound) => r.raw.best.inferPerSec;
  const rows: string[][] = [];
  for (const [name, series] of [
    ['naive', naive],
    ['modelgate distributed', modelgate],
    ['modelgate co-located', colocated],
  ] as const) {
    for (const step of medianSteps(rounds, series)) {
      const c = step.load.concurrency;
      const all = rounds.flatMap((r) => atConcurrency(series(r), c) ?? []);
      rows.push([
        name,
        String(c),
        spreadCell(overRounds(rounds, throughputAt(series, c)), 1),
        spreadCell(ratioOverRounds(rounds, series, c, best), 2, '×'),
        name === 'naive'
          ? '1.00×'
          : spreadCell(ratioOverRounds(rounds, series, c, throughputAt(naive, c)), 2, '×'),
        spreadCell(overRounds(rounds, (r) => atConcurrency(series(r), c)?.load.latency.p50)),
        fmt(step.load.latency.p90),
        fmt(step.load.latency.p99),
        spreadCell(
          overRounds(all, (s) => s.load.latency.p99 / s.load.latency.p50),
          2,
          '×',
        ),
        String(all.reduce((sum, s) => sum + failedRequests(s), 0)),
        fmt(Math.max(...all.map((s) => s.otherCores))),
      ]);
    }
  }
  const b1 = (r: SharedRound) => r.raw.batches.find((b) => b.batchSize === 1);
  const b1OfBest = overRounds(rounds, (r) => (b1(r)?.inferPerSec ?? NaN) / best(r));
  rows.push(
    [
      'raw batch 1 (1 session)',
      '1',
      spreadCell(
        overRounds(rounds, (r) => b1(r)?.inferPerSec),
        1,
      ),
      spreadCell(b1OfBest, 2, '×'),
      '',
      spreadCell(overRounds(rounds, (r) => b1(r)?.latency.p50)),
      '',
      '',
      '',
      '',
      '',
    ],
    [
      'raw best (batch, layout)',
      '-',
      spreadCell(overRounds(rounds, best), 1),
      '1.00×',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
    ],
  );
  return [
    '## Concurrency curve on shared cores: (b) naive vs (c) modelgate distributed and co-located, load from a separate autocannon process',
    '',
    `infer/s, ratios and p50: median (min–max) over ${rounds.length} interleaved rounds, each ratio within its round; ` +
      'p90 and p99: the repeat with the median throughput; failed: all repeats; other cores: the worst repeat. ' +
      'Co-located: the worker inside the gateway process (GATEWAY_LOCAL_WORKER), one event loop; distributed: ' +
      `gateway (GATEWAY_WORKERS=${results.shared?.gatewayWorkers ?? '?'}) and worker processes.`,
    '',
    table(
      [
        'system',
        'c',
        'infer/s',
        '× raw best',
        '× naive',
        'p50 ms',
        'p90 ms',
        'p99 ms',
        'p99/p50',
        'failed',
        'other cores (max)',
      ],
      rows,
    ),
  ].join('\n');
}

export function workerSection(results: BenchResults): string {
  const rounds = results.shared?.rounds ?? [];
  if (!rounds.some((r) => r.workerOnly)) return '';
  const worker: SeriesOf = (r) => r.workerOnly;
  const b1 = (r: SharedRound) => r.raw.batches.find((b) => b.batchSize === 1)?.inferPerSec;
  return [
    '## Worker alone (issue 3): OIP ModelInfer over gRPC vs raw session.run, shared cores',
    '',
    table(
      [
        'c',
        'infer/s',
        '× raw batch 1',
        '× raw best',
        'p50 ms',
        'p50 − raw batch-1 p50',
        'p99 ms',
        'rows/batch',
        'queue ms',
        'compute ms/batch',
        'solo batches',
        'worker CPU ms/req',
        'failed',
      ],
      medianSteps(rounds, worker).map((s) => {
        const c = s.load.concurrency;
        const delta = overRounds(rounds, (r) => {
          const p50 = atConcurrency(r.workerOnly, c)?.load.latency.p50;
          const raw = r.raw.batches.find((b) => b.batchSize === 1)?.latency.p50;
          return p50 !== undefined && raw !== undefined ? p50 - raw : undefined;
        });
        return [
          String(c),
          spreadCell(overRounds(rounds, throughputAt(worker, c)), 1),
          spreadCell(ratioOverRounds(rounds, worker, c, b1), 2, '×'),
          spreadCell(
            ratioOverRounds(rounds, worker, c, (r) => r.raw.best.inferPerSec),
            2,
            '×',
          ),
          fmt(s.load.latency.p50),
          spreadCell(delta, 2, ' ms'),
          fmt(s.load.latency.p99),
          fmt(s.worker?.meanBatchRows),
          fmt(s.load.stages.meanMs.queue),
          fmt(s.worker?.meanComputeMsPerBatch),
          soloCell(s.worker),
          fmt((s.cpu.byParty.worker ?? NaN) / s.load.ok, 3),
          String(failedRequests(s)),
        ];
      }),
    ),
  ].join('\n');
}
