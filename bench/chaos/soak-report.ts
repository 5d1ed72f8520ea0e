/** The soak's part of the chaos markdown. */
import { SOAK_LIMITS, type SeriesSummary } from './soak-analysis.js';
import { SOAK_DEPLOYMENTS, SOAK_KINDS } from './soak-mix.js';
import { type SoakResult } from './run-soak.js';

const ms = (value: number) => (Number.isNaN(value) ? '–' : value.toFixed(1));

function series(summary: SeriesSummary | undefined, digits: number): string {
  if (summary === undefined) return '–';
  const fixed = (value: number) => value.toFixed(digits);
  return `${fixed(summary.first)} → ${fixed(summary.last)} (${fixed(summary.min)}–${fixed(summary.max)})`;
}

const slope = (summary: SeriesSummary | undefined, digits = 1) =>
  summary === undefined || Number.isNaN(summary.slopePerHour)
    ? '–'
    : `${summary.slopePerHour >= 0 ? '+' : ''}${summary.slopePerHour.toFixed(digits)}`;

function failedCell(failed: Record<string, number>): string {
  const entries = Object.entries(failed);
  if (entries.length === 0) return '0';
  return `**${entries.reduce((sum, [, count]) => sum + count, 0)}** (${entries.map(([outcome, count]) => `${count} ${outcome}`).join('; ')})`;
}

/** The soak section: traffic, config changes, and each process's memory and descriptors. */
export function renderSoakMarkdown(soak: SoakResult): string {
  const measured = soak.minutes - soak.warmupMinutes;
  const verdict = soak.passed
    ? `Passed: no failed request, every change reached the whole fleet, every process flat after the warm-up.`
    : 'Did not pass (see below).';
  const changesFailed = soak.changes.filter((change) => change.error !== undefined);
  const settled = soak.changes.flatMap((change) => (change.settledS === undefined ? [] : [change.settledS]));
  return [
    `## Soak: ${soak.minutes} min of mixed traffic, a config change every minute`,
    '',
    `Started ${soak.startedAt}. Beside \`sentiment\` (minilm:1/minilm:2, the canary route), every worker serves ${SOAK_DEPLOYMENTS.map((d) => `\`${d.model}\` (${d.fixture}, ${d.task})`).join(', ')}; the load sends each kind from its own closed-loop clients, alternating over the two gateways, nothing retried (a streamed generation counts as failed unless its stream ends with the \`end\` event). Every process of the fleet read every ${soak.sampleIntervalS} s: RSS and open file descriptors from \`/proc/<pid>\`, V8's used heap and external memory from its own \`/metrics\`. Slopes are least-squares fits over the ${measured.toFixed(1)} min after a ${soak.warmupMinutes.toFixed(1)} min warm-up, per hour; limits: RSS ≤ ${SOAK_LIMITS.rssMiBPerHour} MiB/h, heap ≤ ${SOAK_LIMITS.heapMiBPerHour} MiB/h, descriptors ≤ ${SOAK_LIMITS.fdsPerHour}/h.`,
    '',
    verdict,
    ...(soak.error ? ['', `The soak stopped early: ${soak.error}`] : []),
    '',
    '| traffic | clients | path | sent | failed | p50 ms | p99 ms |',
    '|---|---|---|---|---|---|---|',
    ...SOAK_KINDS.map((kind) => {
      const t = soak.traffic[kind];
      return `| ${kind} | ${t.clients} | \`${t.path}\` | ${t.sent} | ${failedCell(t.failed)} | ${ms(t.p50Ms)} | ${ms(t.p99Ms)} |`;
    }),
    '',
    `Config changes: ${soak.changes.length} made, ${changesFailed.length} failed; the fleet was at each one's revision ${settled.length > 0 ? `${Math.min(...settled).toFixed(2)}–${Math.max(...settled).toFixed(2)} s` : '–'} after it.`,
    '',
    '| process | samples | RSS MiB (first → last, range) | RSS MiB/h | heap MiB | heap MiB/h | external MiB | descriptors | descriptors/h | result |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...soak.processes.map(
      (p) =>
        `| ${p.name} | ${p.samples} | ${series(p.rss, 1)} | ${slope(p.rss)} | ${series(p.heapUsed, 1)} | ${slope(p.heapUsed)} | ${series(p.external, 1)} | ${series(p.fds, 0)} | ${slope(p.fds)} | ${p.problems.length === 0 ? 'flat' : `**${p.problems.join('; ')}**`} |`,
    ),
    '',
    '<details><summary>Every config change</summary>',
    '',
    '| at s | change | fleet at it after | error |',
    '|---|---|---|---|',
    ...soak.changes.map(
      (change) =>
        `| ${change.atS.toFixed(1)} | ${change.change} | ${change.settledS === undefined ? '–' : `${change.settledS.toFixed(2)} s`} | ${change.error ?? ''} |`,
    ),
    '',
    '</details>',
  ].join('\n');
}
