/**
 * The results page: targets first, then each table with its ratios, then where the time went
 * (Server-Timing stages, worker batching and CPU per party per request).
 */
import { type BenchResults, failedRequests } from './bench-results.js';
import { fmt, otherCell, ratio, table } from './report-format.js';
import { cpuSection, gatewaySection, timeSection, workerSection } from './report-costs.js';

function header(results: BenchResults): string {
  const { meta } = results;
  const d = meta.deployment;
  return [
    `# modelgate bench: ${meta.startedAt.slice(0, 10)} on ${meta.host}`,
    '',
    `- Code: ${meta.commit ?? 'unknown commit'}.`,
    `- Machine: ${meta.cpuModel}, ${meta.cores} cores, no GPU; Node ${meta.node}; onnxruntime-node ${meta.onnxruntime}.`,
    `- Load average (1 min): ${fmt(meta.loadAverage.start)} at start, ${fmt(meta.loadAverage.end)} at end. ` +
      'Everything (load generator included) shares these cores; "other" below is CPU used by processes outside the bench.',
    `- Run: suite \`${meta.options.suite}\`, ${meta.options.durationS} s measured per step after ${meta.options.warmupS} s warm-up` +
      `${meta.options.quick ? ' (--quick)' : ''}; ${meta.startedAt} → ${meta.finishedAt ?? '?'}.`,
    `- Model: \`${d.fixture}\` (6 layers, hidden 384, 12 heads; random weights), 40 fixed English sentences of 12–20 words` +
      `${results.raw ? ` (mean ${fmt(results.raw.meanTokens, 1)} tokens with [CLS]/[SEP])` : ''}.`,
    `- Deployment: intraOpThreads ${d.intraOpThreads} (0 = onnxruntime default), instances ${d.instances}, ` +
      `batching ${JSON.stringify(d.batching)} (other fields: schema defaults); ` +
      'intra-op spinning off in the worker and raw (DESIGN §7); the naive server runs onnxruntime with ' +
      "transformers.js's defaults (spinning on).",
    `- Control plane: ${meta.controlPlane?.note ?? 'n/a'}.`,
    '- "other cores": CPU used by processes outside the bench during a step (this machine is shared). A step where ' +
      'it exceeded 0.25 cores was measured once more after a quiet moment, keeping the quieter attempt (marked †).',
  ].join('\n');
}

function targetsSection(results: BenchResults): string {
  if (!results.targets?.length) return '';
  return [
    '## Issue 8 targets',
    '',
    table(
      ['target', 'measured', 'result'],
      results.targets.map((t) => [t.target, t.measured, t.met ? '**met**' : '**missed**']),
    ),
  ].join('\n');
}

function rawSection(results: BenchResults): string {
  const raw = results.raw;
  if (!raw) return '';
  return [
    '## (a) raw onnxruntime-node session.run (own process, pre-tokenized)',
    '',
    table(
      [
        'batch',
        'infer/s',
        'run p50 ms',
        'run p99 ms',
        'ms per row (p50)',
        'CPU ms per row',
        `CPU ceiling infer/s (${results.meta.cores} cores)`,
        'other cores',
      ],
      raw.batches.map((b) => [
        String(b.batchSize),
        fmt(b.inferPerSec, 1),
        fmt(b.latency.p50),
        fmt(b.latency.p99),
        fmt(b.latency.p50 / b.batchSize),
        fmt(b.cpuMsPerRow),
        fmt((results.meta.cores * 1000) / b.cpuMsPerRow, 0),
        otherCell(b.otherCores, b.attempts),
      ]),
    ),
    '',
    `Best batch size: **${raw.best.batchSize}** → **${fmt(raw.best.inferPerSec, 1)} infer/s**, the limit on this machine. ` +
      `Tokenization alone (encodeInputs, one sentence): ${fmt(raw.tokenizePerSec, 0)} texts/s on one core.`,
  ].join('\n');
}

function ladderSection(results: BenchResults): string {
  const steps = [...(results.naive ?? []), ...(results.modelgate?.steps ?? [])];
  if (steps.length === 0) return '';
  const best = results.raw?.best.inferPerSec;
  const naiveAt = (c: number) => results.naive?.find((s) => s.load.concurrency === c)?.load.throughput;
  const rows = steps.map((s) => [
    s.system,
    String(s.load.concurrency),
    fmt(s.load.throughput, 1),
    ratio(s.load.throughput, best),
    s.system === 'naive' ? '1.00×' : ratio(s.load.throughput, naiveAt(s.load.concurrency)),
    fmt(s.load.latency.p50),
    fmt(s.load.latency.p90),
    fmt(s.load.latency.p99),
    ratio(s.load.latency.p99, s.load.latency.p50),
    `${failedRequests(s)} (${s.load.non2xx} non-2xx, ${s.load.errors} errors)`,
    otherCell(s.otherCores, s.attempts),
  ]);
  if (results.raw) {
    const b1 = results.raw.batches.find((b) => b.batchSize === 1);
    const top = results.raw.best;
    rows.push(
      [
        'raw batch 1',
        '1',
        fmt(b1?.inferPerSec, 1),
        ratio(b1?.inferPerSec, best),
        '',
        fmt(b1?.latency.p50),
        fmt(b1?.latency.p90),
        fmt(b1?.latency.p99),
        '',
        '',
        b1 ? otherCell(b1.otherCores, b1.attempts) : '',
      ],
      [
        `raw best (batch ${top.batchSize})`,
        '-',
        fmt(best, 1),
        '1.00×',
        '',
        '',
        '',
        '',
        '',
        '',
        otherCell(top.otherCores, top.attempts),
      ],
    );
  }
  return [
    '## Concurrency ladder: (b) naive vs (c) modelgate, load from a separate autocannon process',
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
        'other cores',
      ],
      rows,
    ),
  ].join('\n');
}

export function renderMarkdown(results: BenchResults, chartFile: string): string {
  const sections = [
    header(results),
    targetsSection(results),
    rawSection(results),
    ladderSection(results),
    timeSection(results),
    workerSection(results),
    gatewaySection(results),
    cpuSection(results),
    `![throughput vs p99](${chartFile})`,
  ];
  return `${sections.filter((s) => s.length > 0).join('\n\n')}\n`;
}
