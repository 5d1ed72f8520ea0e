/**
 * The results page's chunked-prefill section: the running sequences' inter-token latency while
 * long prompts arrive, chunked vs whole, median (min–max) over the rounds, and the p99 ratio taken
 * within each round.
 */
import { type BenchResults } from './bench-results.js';
import { fmt, spreadCell, table } from './report-format.js';
import { spreadOf } from './stats.js';

export function prefillSection(results: BenchResults): string {
  const prefill = results.prefill;
  if (!prefill) return '';
  const { scenario, summary } = prefill;
  const rows = Object.entries(summary).map(([mode, figures]) => {
    const chunk = prefill.rounds.flat().find((run) => run.mode === mode)?.chunkTokens ?? 0;
    return [
      `${mode} (WORKER_PREFILL_CHUNK_TOKENS=${chunk})`,
      spreadCell(figures.p50, 1, ' ms'),
      spreadCell(figures.p99, 1, ' ms'),
      spreadCell(figures.max, 1, ' ms'),
      spreadCell(figures.longFirstTokenMs, 0, ' ms'),
    ];
  });
  const ratios = spreadOf(
    prefill.rounds.map((runs) => {
      const p99 = (mode: string) => runs.find((run) => run.mode === mode)?.interToken.p99 ?? NaN;
      return p99('whole') / p99('chunked');
    }),
  );
  return [
    '## Chunked prefill',
    '',
    `${scenario.shortStreams} greedy sequences (${scenario.shortPromptTokens}-token prompts) decode while ` +
      `${scenario.longPrompts} prompts of ${scenario.longPromptTokens} tokens arrive one after the other ` +
      `(${prefill.fixture}, one worker, gRPC ModelGenerate); inter-token gaps of the running sequences ` +
      'from the first long prompt until the last one has its first token.',
    '',
    table(
      [
        'prefill',
        'inter-token p50',
        'inter-token p99',
        'inter-token max',
        "long prompt's first token (median)",
      ],
      rows,
    ),
    '',
    `Inter-token p99, whole ÷ chunked within a round: ${spreadCell(ratios, 2, '×')} (${fmt(ratios.samples.length, 0)} rounds).`,
  ].join('\n');
}
