import { UsageError } from '../cli-errors.js';
import { parseDurationMs } from './duration-argument.js';

/** Longest duration a rollout takes for a window: 7 days, as the registry. */
const MAX_DURATION_SECONDS = 7 * 24 * 3600;

/**
 * A duration as `rollout start` takes it (parseDurationMs), in whole seconds from 1s to 168h, as
 * the registry takes them.
 */
export function parseDuration(text: string): number {
  const ms = parseDurationMs(text);
  if (ms % 1000 !== 0) throw new UsageError(`'${text}': rollout durations are whole seconds`);
  const total = ms / 1000;
  if (total < 1 || total > MAX_DURATION_SECONDS) {
    throw new UsageError(`'${text}' must be from 1s to 168h`);
  }
  return total;
}

/** `5,25,50,100` → canary percentages: integers 1–100, strictly ascending, ending at 100. */
export function parseSteps(text: string): number[] {
  const parts = text.split(',').map((part) => part.trim());
  const steps = parts.map((part) => {
    if (!/^\d+$/.test(part) || Number(part) < 1 || Number(part) > 100) {
      throw new UsageError(`steps '${text}': '${part}' must be a whole percentage from 1 to 100`);
    }
    return Number(part);
  });
  if (steps.some((step, i) => i > 0 && step <= (steps[i - 1] ?? 0))) {
    throw new UsageError(`steps '${text}' must be strictly ascending, e.g. 5,25,50,100`);
  }
  if (steps.at(-1) !== 100) throw new UsageError(`steps '${text}' must end at 100`);
  return steps;
}

/** A plain decimal number: no sign, exponent, hex or Infinity (`0x10` is not 16 ms). */
export const DECIMAL = /^(\d+(\.\d*)?|\.\d+)$/;

/** A share from 0 to 1 (`0.01`), or a percentage (`1%`). */
export function parseRate(text: string): number {
  const trimmed = text.trim();
  const percent = trimmed.endsWith('%');
  const digits = percent ? trimmed.slice(0, -1) : trimmed;
  const value = DECIMAL.test(digits) ? Number(digits) : NaN;
  const share = percent ? value / 100 : value;
  if (!Number.isFinite(share) || share < 0 || share > 1) {
    throw new UsageError(`'${text}' must be a share from 0 to 1 (e.g. 0.01) or a percentage (e.g. 1%)`);
  }
  return share;
}

/** A positive number of milliseconds, e.g. `250`. */
export function parseMilliseconds(text: string): number {
  const trimmed = text.trim().replace(/ms$/, '');
  const value = DECIMAL.test(trimmed) ? Number(trimmed) : NaN;
  if (!Number.isFinite(value) || value <= 0) {
    throw new UsageError(`'${text}' must be a positive number of milliseconds, e.g. 250`);
  }
  return value;
}

/** A whole percentage from 1 to 100. */
export function parsePercent(text: string): number {
  const trimmed = text.trim().replace(/%$/, '');
  if (!/^\d+$/.test(trimmed) || Number(trimmed) < 1 || Number(trimmed) > 100) {
    throw new UsageError(`'${text}' must be a whole percentage from 1 to 100`);
  }
  return Number(trimmed);
}

/** Whole seconds as parseDuration reads them: `2m`, `1m30s`, `1h`. */
export function formatDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  const text = `${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}${s > 0 ? `${s}s` : ''}`;
  return text === '' ? '0s' : text;
}
