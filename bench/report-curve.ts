/**
 * The concurrency curve (issue 40): two panels over concurrency 1…128 (log₂ x), throughput on the
 * left (linear) and p50 latency on the right (log), for the naive server, modelgate distributed and
 * modelgate co-located, with raw session.run's best throughput and batch-1 p50 as dashed lines.
 * Each point is the median over the interleaved rounds; the whiskers span min–max.
 */
import { type BenchResults, type SharedRound, atConcurrency, overRounds } from './bench-results.js';
import { type StepResult } from './load-step.js';

interface CurveSeries {
  name: string;
  color: string;
  of: (round: SharedRound) => readonly StepResult[] | undefined;
}

const SERIES: readonly CurveSeries[] = [
  { name: 'naive: node:http + transformers.js pipeline', color: '#d62728', of: (r) => r.naive },
  { name: 'modelgate distributed (gateway + worker processes)', color: '#1f77b4', of: (r) => r.modelgate },
  { name: 'modelgate co-located (GATEWAY_LOCAL_WORKER)', color: '#9467bd', of: (r) => r.colocated },
];

const PANEL = { width: 440, height: 340, left: 64, top: 56, right: 16, bottom: 52 };
const WIDTH = PANEL.width * 2;
const HEIGHT = PANEL.height + 90;

interface Point {
  c: number;
  median: number;
  min: number;
  max: number;
}

function pointsOf(
  rounds: readonly SharedRound[],
  series: CurveSeries,
  value: (step: StepResult) => number,
): Point[] {
  const concurrencies = [
    ...new Set(rounds.flatMap((r) => (series.of(r) ?? []).map((s) => s.load.concurrency))),
  ];
  return concurrencies
    .sort((a, b) => a - b)
    .flatMap((c) => {
      const spread = overRounds(rounds, (r) => {
        const step = atConcurrency(series.of(r), c);
        return step ? value(step) : undefined;
      });
      return Number.isFinite(spread.median) ? [{ c, ...spread }] : [];
    });
}

const escape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** One panel: x log₂ over concurrency, y linear from 0 or log. */
function panel(
  offsetX: number,
  title: string,
  yLabel: string,
  lines: { color: string; points: Point[] }[],
  references: { label: string; value: number }[],
  logY: boolean,
): string[] {
  const all = [
    ...lines.flatMap((l) => l.points.flatMap((p) => [p.min, p.max])),
    ...references.map((r) => r.value),
  ];
  const cs = lines.flatMap((l) => l.points.map((p) => p.c));
  const cMax = Math.max(2, ...cs);
  const plotW = PANEL.width - PANEL.left - PANEL.right;
  const plotH = PANEL.height - PANEL.top - PANEL.bottom;
  const yMaxRaw = Math.max(1, ...all.filter(Number.isFinite));
  const yMinRaw = Math.min(...all.filter((v) => Number.isFinite(v) && v > 0), yMaxRaw);
  const yMin = logY ? 10 ** Math.floor(Math.log10(yMinRaw)) : 0;
  const yMax = logY ? 10 ** Math.ceil(Math.log10(yMaxRaw)) : yMaxRaw * 1.1;
  const x = (c: number) => offsetX + PANEL.left + (Math.log2(c) / Math.log2(cMax)) * plotW;
  const y = (v: number) =>
    PANEL.top +
    plotH -
    (logY
      ? ((Math.log10(v) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * plotH
      : ((v - yMin) / (yMax - yMin)) * plotH);
  const parts = [
    `<text x="${offsetX + PANEL.left + plotW / 2}" y="${PANEL.top - 12}" text-anchor="middle" font-weight="bold">${escape(title)}</text>`,
    `<rect x="${offsetX + PANEL.left}" y="${PANEL.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333333"/>`,
    `<text x="${offsetX + PANEL.left + plotW / 2}" y="${PANEL.top + plotH + 36}" text-anchor="middle">concurrency (closed-loop clients)</text>`,
    `<text transform="translate(${offsetX + 16} ${PANEL.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escape(yLabel)}</text>`,
  ];
  for (let c = 1; c <= cMax; c *= 2) {
    parts.push(
      `<line x1="${x(c)}" y1="${PANEL.top}" x2="${x(c)}" y2="${PANEL.top + plotH}" stroke="#eeeeee"/>`,
      `<text x="${x(c)}" y="${PANEL.top + plotH + 16}" text-anchor="middle">${c}</text>`,
    );
  }
  const ticks = logY
    ? Array.from(
        { length: Math.round(Math.log10(yMax / yMin)) * 3 + 1 },
        (_, i) => yMin * [1, 2, 5][i % 3]! * 10 ** Math.floor(i / 3),
      ).filter((t) => t <= yMax)
    : Array.from({ length: 6 }, (_, i) => (yMax / 5) * i);
  for (const tick of ticks) {
    parts.push(
      `<line x1="${offsetX + PANEL.left}" y1="${y(tick)}" x2="${offsetX + PANEL.left + plotW}" y2="${y(tick)}" stroke="#eeeeee"/>`,
      `<text x="${offsetX + PANEL.left - 6}" y="${y(tick) + 4}" text-anchor="end">${tick >= 100 ? tick.toFixed(0) : Number(tick.toPrecision(2))}</text>`,
    );
  }
  for (const reference of references) {
    if (!Number.isFinite(reference.value)) continue;
    parts.push(
      `<line x1="${offsetX + PANEL.left}" y1="${y(reference.value)}" x2="${offsetX + PANEL.left + plotW}" y2="${y(reference.value)}" stroke="#555555" stroke-dasharray="6 4"/>`,
      `<text x="${offsetX + PANEL.left + plotW - 4}" y="${y(reference.value) - 4}" text-anchor="end" fill="#555555" font-size="10">${escape(reference.label)}</text>`,
    );
  }
  for (const line of lines) {
    if (line.points.length === 0) continue;
    const path = line.points.map((p) => `${x(p.c).toFixed(1)},${y(p.median).toFixed(1)}`).join(' ');
    parts.push(`<polyline points="${path}" fill="none" stroke="${line.color}" stroke-width="2"/>`);
    for (const p of line.points) {
      parts.push(
        `<line x1="${x(p.c).toFixed(1)}" y1="${y(p.min).toFixed(1)}" x2="${x(p.c).toFixed(1)}" y2="${y(p.max).toFixed(1)}" stroke="${line.color}"/>`,
        `<circle cx="${x(p.c).toFixed(1)}" cy="${y(p.median).toFixed(1)}" r="3" fill="${line.color}"/>`,
      );
    }
  }
  return parts;
}

/** The curve as an SVG document, or undefined when the run has no HTTP curve. */
export function renderCurveSvg(results: BenchResults): string | undefined {
  const rounds = results.shared?.rounds ?? [];
  const present = SERIES.filter((s) => rounds.some((r) => (s.of(r) ?? []).length > 0));
  if (present.length === 0) return undefined;
  const best = overRounds(rounds, (r) => r.raw.best.inferPerSec).median;
  const b1 = overRounds(rounds, (r) => r.raw.batches.find((b) => b.batchSize === 1)?.latency.p50).median;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">minilm-sst2 on ${escape(results.meta.host)} (${results.meta.cores} cores): median of ${rounds.length} interleaved rounds, whiskers min–max</text>`,
    ...panel(
      0,
      'throughput',
      'inferences/s',
      present.map((s) => ({ color: s.color, points: pointsOf(rounds, s, (step) => step.load.throughput) })),
      [{ label: 'raw session.run best', value: best }],
      false,
    ),
    ...panel(
      PANEL.width,
      'p50 latency',
      'ms (log scale)',
      present.map((s) => ({ color: s.color, points: pointsOf(rounds, s, (step) => step.load.latency.p50) })),
      [{ label: 'raw batch-1 p50', value: b1 }],
      true,
    ),
  ];
  present.forEach((s, i) => {
    const lx = 24 + i * 290;
    const ly = PANEL.height + 50;
    parts.push(
      `<line x1="${lx}" y1="${ly}" x2="${lx + 26}" y2="${ly}" stroke="${s.color}" stroke-width="2"/>`,
      `<text x="${lx + 32}" y="${ly + 4}" font-size="11">${escape(s.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
