/**
 * The results page's question-answering section: modelgate's requests (each its windows as rows of
 * one ModelInfer) against raw session.run on the same windows, compared in windows per second.
 * Ranges are median (min–max) over the interleaved rounds; other cells are the median repeat.
 */
import {
  type BenchResults,
  type QaRound,
  atConcurrency,
  failedRequests,
  medianRawBatches,
  medianSteps,
  overRounds,
} from './bench-results.js';
import { fmt, layoutLabel, spreadCell, table } from './report-format.js';

export function qaSection(results: BenchResults): string {
  const qa = results.qa;
  if (qa === undefined) return '';
  const { rounds, windowsPerRequest } = qa;
  const raw = medianRawBatches(rounds);
  const steps = medianSteps(rounds, (r: QaRound) => r.modelgate);
  const windowsPerSec = (r: QaRound, c: number) =>
    (atConcurrency(r.modelgate, c)?.load.throughput ?? NaN) * windowsPerRequest;
  return [
    '## Question answering over long contexts (issue 14)',
    '',
    `\`${qa.fixture}\` (minilm's shape with a span head). ${qa.bodies} bodies, each a question about a context of ` +
      `${fmt(qa.meanContextTokens, 0)} tokens: the gateway cuts it into ${fmt(windowsPerRequest)} windows of ` +
      `${qa.windowTokens} tokens (doc_stride ${qa.docStride}) and sends them as the rows of one ModelInfer; the ` +
      "worker's batcher merges the windows of concurrent requests. Raw session.run runs the same windows, " +
      `${raw.map((b) => b.batchSize).join(' and ')} rows per run (the windows of one request and of four), in one ` +
      'session (the table) and, when the deployment runs several instances, as many sessions side by side ' +
      `(rows/s summed); raw best per round: ${rounds
        .map((r) => `b${r.raw.best.batchSize} (${layoutLabel(r.raw.bestLayout, results.meta.cores)})`)
        .join(', ')}.`,
    '',
    table(
      [
        'system',
        'rows per run / c',
        'windows/s',
        'requests/s',
        'p50 ms',
        'p99 ms',
        'rows per batch',
        'failed',
      ],
      [
        ...raw.map((b) => [
          'raw session.run',
          `b${b.batchSize}`,
          spreadCell(
            overRounds(rounds, (r) => r.raw.batches.find((x) => x.batchSize === b.batchSize)?.inferPerSec),
            1,
          ),
          fmt(b.inferPerSec / windowsPerRequest, 1),
          fmt(b.latency.p50),
          fmt(b.latency.p99),
          String(b.batchSize),
          '-',
        ]),
        ...steps.map((s) => [
          'modelgate',
          `c=${s.load.concurrency}`,
          spreadCell(
            overRounds(rounds, (r) => windowsPerSec(r, s.load.concurrency)),
            1,
          ),
          fmt(s.load.throughput, 1),
          fmt(s.load.latency.p50),
          fmt(s.load.latency.p99),
          fmt(s.worker?.meanBatchRows),
          String(failedRequests(s)),
        ]),
      ],
    ),
    '',
    table(
      ['modelgate at', 'windows/s ÷ raw best'],
      steps.map((s) => [
        `c=${s.load.concurrency}`,
        spreadCell(
          overRounds(rounds, (r) => windowsPerSec(r, s.load.concurrency) / r.raw.best.inferPerSec),
          2,
          '×',
        ),
      ]),
    ),
  ].join('\n');
}
