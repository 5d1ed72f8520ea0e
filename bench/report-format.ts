/** Number and table formatting shared by the results page's sections. */
import { type RawLayout } from './bench-results.js';
import { type Spread } from './stats.js';

/** `value` with `digits` decimals, or n/a. */
export const fmt = (value: number | undefined, digits = 2): string =>
  value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : 'n/a';

/** a / b as `1.23×`, or n/a. */
export const ratio = (a: number | undefined, b: number | undefined): string =>
  a !== undefined && b !== undefined && b > 0 ? `${fmt(a / b)}×` : 'n/a';

/** Cores other processes used during a step; † marks a step measured twice because the first was noisy. */
export function otherCell(cores: number, attempts: number): string {
  return `${fmt(cores)}${attempts > 1 ? ' †' : ''}`;
}

/** A Markdown table. */
export function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

/** A figure over the repeats: `median (min–max)` with `suffix` (e.g. `×`, ` ms`); just the median for one repeat. */
export function spreadCell(spread: Spread, digits = 2, suffix = ''): string {
  if (!Number.isFinite(spread.median)) return 'n/a';
  const median = `${fmt(spread.median, digits)}${suffix}`;
  return spread.samples.length > 1
    ? `${median} (${fmt(spread.min, digits)}–${fmt(spread.max, digits)})`
    : median;
}

/** A raw layout as `2 sessions × 1 thread`; intra-op threads 0 count as one per core. */
export function layoutLabel(layout: RawLayout, cores: number): string {
  const threads = layout.intraOpThreads > 0 ? layout.intraOpThreads : cores;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${plural(layout.sessions, 'session')} × ${plural(threads, 'thread')}`;
}

/** The share of a step's batches that ran on the worker's solo session, or n/a without the counter. */
export function soloCell(worker: { batches: number; soloBatches?: number } | undefined): string {
  if (worker?.soloBatches === undefined || worker.batches <= 0) return 'n/a';
  return `${Math.round((100 * worker.soloBatches) / worker.batches)}%`;
}
