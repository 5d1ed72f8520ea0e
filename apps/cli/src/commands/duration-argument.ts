import { UsageError } from '../cli-errors.js';

/** Hours, minutes, seconds and milliseconds, each at most once and in that order (`m` never `ms`). */
const DURATION = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/;

/**
 * A duration as every CLI option takes it, in milliseconds: `500ms`, `30s`, `2m`, `1h`, or units
 * combined in that order (`1m30s`). A UsageError saying what is accepted otherwise (a bare number
 * has no unit).
 */
export function parseDurationMs(text: string): number {
  const trimmed = text.trim().toLowerCase();
  const match = DURATION.exec(trimmed);
  if (trimmed === '' || match === null) {
    const hint = /^\d+$/.test(trimmed) ? ` (give a unit: ${trimmed}s or ${trimmed}m)` : '';
    throw new UsageError(
      `'${text}' is not a duration: use h, m, s or ms, e.g. 500ms, 30s, 2m, 1h or 1m30s${hint}`,
    );
  }
  const [, hours = '0', minutes = '0', seconds = '0', millis = '0'] = match;
  return ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000 + Number(millis);
}
