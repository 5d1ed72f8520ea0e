import { describe, expect, it } from 'vitest';
import { parseDurationMs } from './duration-argument.js';

describe('parseDurationMs', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['1m30s', 90_000],
    ['1s500ms', 1500],
    ['1h5m', 3_900_000],
    [' 2M ', 120_000],
    ['0s', 0],
  ])('%s → %i ms', (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });

  it.each([
    ['90', /'90' is not a duration.*give a unit: 90s or 90m/],
    ['2x', /'2x' is not a duration: use h, m, s or ms, e.g. 500ms, 30s, 2m, 1h or 1m30s/],
    ['30s2m', /not a duration/],
    ['1.5m', /not a duration/],
    ['2ms30s', /not a duration/],
    ['', /not a duration/],
  ])('refuses %j', (text, message) => {
    expect(() => parseDurationMs(text)).toThrow(message);
  });
});
