/**
 * The throughput vs p99 latency chart (the shape of Triton's perf_analyzer figures): one line per
 * system on shared cores, one point per concurrency (per batch size for raw session.run), the
 * median repeat of each. Hand-written SVG: x is
 * linear in inferences/s, y is logarithmic in ms because the naive server's tail spans decades.
 */
import { type BenchResults, medianRawBatches, medianSteps } from './bench-results.js';
import { type StepResult } from './load-step.js';

interface Series {
  name: string;
  color: string;
  dashed: boolean;
  points: { x: number; y: number; label: string }[];
}

const WIDTH = 820;
const HEIGHT = 500;
const MARGIN = { left: 70, right: 30, top: 50, bottom: 60 };
const PLOT_W = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_H = HEIGHT - MARGIN.top - MARGIN.bottom;

function stepPoints(steps: readonly StepResult[]): Series['points'] {
  return steps.map((s) => ({
    x: s.load.throughput,
    y: s.load.latency.p99,
    label: `c=${s.load.concurrency}`,
  }));
}

/** The shared-cores series; each point is the repeat with the median throughput (as in the tables). */
function seriesOf(results: BenchResults): Series[] {
  const rounds = results.shared?.rounds ?? [];
  const series: Series[] = [];
  if (rounds.length > 0) {
    series.push({
      name: 'raw session.run (per batch size; latency of one run)',
      color: '#555555',
      dashed: true,
      points: medianRawBatches(rounds).map((b) => ({
        x: b.inferPerSec,
        y: b.latency.p99,
        label: `b=${b.batchSize}`,
      })),
    });
  }
  const naive = medianSteps(rounds, (r) => r.naive);
  if (naive.length > 0) {
    series.push({
      name: 'naive: node:http + transformers.js pipeline',
      color: '#d62728',
      dashed: false,
      points: stepPoints(naive),
    });
  }
  const modelgate = medianSteps(rounds, (r) => r.modelgate);
  if (modelgate.length > 0) {
    series.push({
      name: `modelgate: gateway (GATEWAY_WORKERS=${results.shared?.gatewayWorkers ?? '?'}) + worker`,
      color: '#1f77b4',
      dashed: false,
      points: stepPoints(modelgate),
    });
  }
  const colocated = medianSteps(rounds, (r) => r.colocated);
  if (colocated.length > 0) {
    series.push({
      name: 'modelgate co-located: worker inside the gateway (GATEWAY_LOCAL_WORKER)',
      color: '#9467bd',
      dashed: false,
      points: stepPoints(colocated),
    });
  }
  const worker = medianSteps(rounds, (r) => r.workerOnly);
  if (worker.length > 0) {
    series.push({ name: 'worker alone (gRPC)', color: '#2ca02c', dashed: true, points: stepPoints(worker) });
  }
  return series.map((s) => ({ ...s, points: s.points.filter((p) => Number.isFinite(p.x) && p.y > 0) }));
}

/** Round-number ticks from 0 to at least `max`. */
function linearTicks(max: number): number[] {
  const rough = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? rough;
  return Array.from({ length: Math.ceil(max / step) + 1 }, (_, i) => i * step);
}

/** 1-2-5 ticks per decade covering [min, max]. */
function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let exp = Math.floor(Math.log10(min)); exp <= Math.ceil(Math.log10(max)); exp++) {
    for (const m of [1, 2, 5]) {
      const tick = m * 10 ** exp;
      if (tick >= min / 1.0001 && tick <= max * 1.0001) ticks.push(tick);
    }
  }
  return ticks;
}

const escape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The chart as an SVG document. */
export function renderChartSvg(results: BenchResults): string {
  const series = seriesOf(results);
  const all = series.flatMap((s) => s.points);
  const xTicks = linearTicks(Math.max(1, ...all.map((p) => p.x)) * 1.05);
  const xMax = xTicks.at(-1) ?? 1;
  const yMin = all.length > 0 ? 10 ** Math.floor(Math.log10(Math.min(...all.map((p) => p.y)))) : 1;
  const yMax = 10 ** Math.ceil(Math.log10(Math.max(...all.map((p) => p.y), 10)));
  const x = (value: number) => MARGIN.left + (value / xMax) * PLOT_W;
  const y = (value: number) =>
    MARGIN.top +
    PLOT_H -
    ((Math.log10(value) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * PLOT_H;

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${WIDTH / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">minilm-sst2 on ${escape(results.meta.host)} (${results.meta.cores} cores): throughput vs p99 latency</text>`,
  ];
  for (const tick of xTicks) {
    parts.push(
      `<line x1="${x(tick)}" y1="${MARGIN.top}" x2="${x(tick)}" y2="${MARGIN.top + PLOT_H}" stroke="#eeeeee"/>`,
      `<text x="${x(tick)}" y="${MARGIN.top + PLOT_H + 18}" text-anchor="middle">${tick}</text>`,
    );
  }
  for (const tick of logTicks(yMin, yMax)) {
    parts.push(
      `<line x1="${MARGIN.left}" y1="${y(tick)}" x2="${MARGIN.left + PLOT_W}" y2="${y(tick)}" stroke="#eeeeee"/>`,
      `<text x="${MARGIN.left - 8}" y="${y(tick) + 4}" text-anchor="end">${tick}</text>`,
    );
  }
  parts.push(
    `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${PLOT_W}" height="${PLOT_H}" fill="none" stroke="#333333"/>`,
    `<text x="${MARGIN.left + PLOT_W / 2}" y="${HEIGHT - 18}" text-anchor="middle">throughput (inferences/s)</text>`,
    `<text transform="translate(18 ${MARGIN.top + PLOT_H / 2}) rotate(-90)" text-anchor="middle">p99 latency (ms, log scale)</text>`,
  );
  for (const s of series) {
    const path = s.points.map((p) => `${x(p.x).toFixed(1)},${y(p.y).toFixed(1)}`).join(' ');
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    parts.push(`<polyline points="${path}" fill="none" stroke="${s.color}" stroke-width="2"${dash}/>`);
    for (const p of s.points) {
      parts.push(
        `<circle cx="${x(p.x).toFixed(1)}" cy="${y(p.y).toFixed(1)}" r="3.5" fill="${s.color}"/>`,
        `<text x="${(x(p.x) + 6).toFixed(1)}" y="${(y(p.y) - 6).toFixed(1)}" fill="${s.color}" font-size="10">${p.label}</text>`,
      );
    }
  }
  // Legend in the upper left: low throughput at a high p99 is where no system's points fall.
  const legendW = 430;
  const legendX = MARGIN.left + 8;
  const legendY = MARGIN.top + 8;
  parts.push(
    `<rect x="${legendX}" y="${legendY}" width="${legendW}" height="${series.length * 18 + 8}" fill="#ffffff" fill-opacity="0.9" stroke="#cccccc"/>`,
  );
  series.forEach((s, i) => {
    const ly = legendY + 13 + i * 18;
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    parts.push(
      `<line x1="${legendX + 8}" y1="${ly}" x2="${legendX + 36}" y2="${ly}" stroke="${s.color}" stroke-width="2"${dash}/>`,
      `<text x="${legendX + 42}" y="${ly + 4}">${escape(s.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
