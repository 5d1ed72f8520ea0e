import {
  type RolloutHistoryEntry,
  type RolloutSummary,
  type RolloutView,
  type RolloutWindowNumbersView,
} from '@modelgate/contracts';
import { formatDetails, formatTable } from '../output/table.js';
import { formatDuration } from './rollout-arguments.js';

/** `1.25 %` (two decimals under 10 %), `-` when nothing was measured. */
export function formatShare(share: number | null | undefined): string {
  if (share === null || share === undefined) return '-';
  return `${(share * 100).toFixed(share < 0.1 ? 2 : 1)} %`;
}

/** One row of the window's checks: the value so far against its limit. */
interface Check {
  check: string;
  value: string;
  limit: string;
  /** ok, over (a breach: rollback at the window's end), short (too little: hold), or - (not judged). */
  verdict: string;
}

/** The running window's numbers against the thresholds, as the registry will judge them. */
export function windowChecks(view: RolloutView, numbers: RolloutWindowNumbersView): Check[] {
  const t = view.thresholds;
  const shadow = view.phase === 'shadow';
  const compared = numbers.agreeing + numbers.disagreeing;
  const checks: Check[] = [];
  if (shadow) {
    const rate = numbers.mirrored > 0 ? numbers.mirrorErrors / numbers.mirrored : null;
    checks.push({
      check: 'mirror errors',
      value: `${formatShare(rate)} (${numbers.mirrorErrors} of ${numbers.mirrored})`,
      limit: `≤ ${formatShare(t.maxErrorRate)}`,
      verdict: rate === null ? '-' : rate > t.maxErrorRate ? 'over' : 'ok',
    });
  } else {
    checks.push(
      {
        check: 'error rate',
        value: `${formatShare(numbers.errorRate)} (${numbers.errors} of ${numbers.requests})`,
        limit: `≤ ${formatShare(t.maxErrorRate)}`,
        verdict: numbers.errorRate === null ? '-' : numbers.errorRate > t.maxErrorRate ? 'over' : 'ok',
      },
      {
        check: 'p99',
        value: numbers.p99Ms === null ? '-' : `${numbers.p99Ms.toFixed(1)} ms`,
        limit: t.maxP99Ms === undefined ? 'not checked' : `≤ ${t.maxP99Ms} ms`,
        verdict:
          numbers.p99Ms === null || t.maxP99Ms === undefined
            ? '-'
            : numbers.p99Ms > t.maxP99Ms
              ? 'over'
              : 'ok',
      },
    );
  }
  // Windows recorded before comparesAnswers was reported: compared rows where there are any.
  const comparesAnswers = numbers.comparesAnswers ?? compared > 0;
  checks.push({
    check: 'agreement',
    value: `${formatShare(numbers.agreement)} (${compared} rows${numbers.uncompared ? `, ${numbers.uncompared} sampled rows uncompared` : ''})`,
    limit: numbers.comparesAnswers === false ? 'not measured' : `≥ ${formatShare(t.minAgreement)}`,
    verdict: numbers.agreement === null ? '-' : numbers.agreement < t.minAgreement ? 'over' : 'ok',
  });
  const volume = shadow
    ? comparesAnswers
      ? compared
      : numbers.mirrored - numbers.mirrorErrors
    : numbers.requests;
  checks.push({
    check: shadow ? 'mirrored volume' : 'requests',
    value: String(volume),
    limit: `≥ ${t.minRequests}`,
    verdict: volume >= t.minRequests ? 'ok' : 'short',
  });
  return checks;
}

/** Where a rollout is, its running window against the thresholds, and its history. */
export function renderRollout(view: RolloutView, nowMs: number = Date.now()): string {
  const steps = view.steps.map((step) => `${step}`).join(', ');
  const stepText =
    view.phase === 'live'
      ? ` (step ${view.stepIndex + 1} of ${view.steps.length}: ${steps})`
      : ` (steps ${steps})`;
  const details = formatDetails([
    ['rollout', `${view.endpoint}: ${view.from ?? '(deleted model)'} → ${view.to}`],
    ['state', `${view.state} (${view.phase})`],
    ['traffic', `${view.percent} % to ${view.to}${stepText}`],
    [
      'windows',
      `${formatDuration(view.intervalSeconds)} per step` +
        (view.shadowFirstSeconds === null
          ? ''
          : `; shadow first for ${formatDuration(view.shadowFirstSeconds)}, ${view.shadowPercent} % mirrored`),
    ],
    ['waiting for', view.waitingFor ?? undefined],
    ['started', view.createdAt],
  ]);
  const parts = [details];
  if (view.window !== null) {
    const endsIn = Date.parse(view.window.endsAt) - nowMs;
    const header = `window since ${view.window.startedAt}, judged ${endsIn > 0 ? `in ${formatDuration(Math.ceil(endsIn / 1000))}` : 'now'}`;
    parts.push(
      '',
      header,
      view.window.numbers === null
        ? "(the gateways' numbers cannot be read right now)"
        : formatTable(windowChecks(view, view.window.numbers), [
            { header: 'CHECK', cell: (c) => c.check },
            { header: 'SO FAR', cell: (c) => c.value, align: 'right' },
            { header: 'LIMIT', cell: (c) => c.limit },
            { header: '', cell: (c) => c.verdict },
          ]),
    );
  }
  parts.push(
    '',
    'history',
    formatTable<RolloutHistoryEntry>(
      view.history,
      [
        { header: 'AT', cell: (h) => h.at },
        { header: 'EVENT', cell: (h) => (h.times === undefined ? h.event : `${h.event} ×${h.times}`) },
        { header: 'STATE', cell: (h) => h.state },
        { header: 'TRAFFIC', cell: (h) => `${h.percent} %`, align: 'right' },
        { header: 'BY', cell: (h) => h.actor },
        { header: 'REASON', cell: (h) => h.reason },
      ],
      { empty: '(nothing yet)' },
    ),
  );
  return parts.join('\n');
}

/** `sentiment: sst2:1 → sst2:2 RUNNING live 25 %`, one per rollout in progress. */
export function describeRolloutSummary(summary: RolloutSummary): string {
  return `${summary.endpoint}: ${summary.from ?? '(deleted model)'} → ${summary.to} ${summary.state} ${summary.phase} ${summary.percent} %`;
}
