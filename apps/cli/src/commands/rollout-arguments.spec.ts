import { describe, expect, it } from 'vitest';
import {
  formatDuration,
  parseDuration,
  parseMilliseconds,
  parsePercent,
  parseRate,
  parseSteps,
} from './rollout-arguments.js';

describe('parseDuration', () => {
  it.each([
    ['30s', 30],
    ['2000ms', 2],
    ['2m', 120],
    ['1h', 3600],
    ['1m30s', 90],
    ['1h5m', 3900],
    [' 2M ', 120],
  ])('%s → %i seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it.each([
    ['90', /'90' is not a duration.*give a unit: 90s or 90m/],
    ['2x', /'2x' is not a duration/],
    ['1500ms', /'1500ms': rollout durations are whole seconds/],
    ['30s2m', /not a duration/],
    ['1.5m', /not a duration/],
    ['', /not a duration/],
    ['0s', /must be from 1s to 168h/],
    ['169h', /must be from 1s to 168h/],
  ])('refuses %j', (text, message) => {
    expect(() => parseDuration(text)).toThrow(message);
  });

  it('formats seconds back the way it reads them', () => {
    expect([120, 90, 3600, 3661, 0].map(formatDuration)).toEqual(['2m', '1m30s', '1h', '1h1m1s', '0s']);
  });
});

describe('parseSteps', () => {
  it('reads ascending percentages ending at 100', () => {
    expect(parseSteps('5,25,50,100')).toEqual([5, 25, 50, 100]);
    expect(parseSteps('100')).toEqual([100]);
  });

  it.each([
    ['10,50', /must end at 100/],
    ['50,10,100', /strictly ascending/],
    ['10,10,100', /strictly ascending/],
    ['0,100', /'0' must be a whole percentage from 1 to 100/],
    ['ten,100', /'ten' must be a whole percentage/],
  ])('refuses %j', (text, message) => {
    expect(() => parseSteps(text)).toThrow(message);
  });
});

describe('rates, milliseconds and percentages', () => {
  it('reads a rate as a share or a percentage', () => {
    expect(parseRate('0.01')).toBe(0.01);
    expect(parseRate('1%')).toBeCloseTo(0.01, 10);
    expect(() => parseRate('2')).toThrow(/share from 0 to 1/);
    expect(() => parseRate('%')).toThrow(/share from 0 to 1/);
    // Plain decimals only: no hex, exponent or sign forms that Number() would take.
    for (const form of ['0x0', '1e-2', '-0', '+0.5', 'Infinity', ' ']) {
      expect(() => parseRate(form)).toThrow(/share from 0 to 1/);
    }
    expect(parseRate('.5')).toBe(0.5);
  });

  it('reads milliseconds and whole percentages', () => {
    expect(parseMilliseconds('250')).toBe(250);
    expect(parseMilliseconds('250ms')).toBe(250);
    expect(() => parseMilliseconds('0')).toThrow(/positive number of milliseconds/);
    for (const form of ['0x10', '1e3', '+5', 'Infinity']) {
      expect(() => parseMilliseconds(form)).toThrow(/positive number of milliseconds/);
    }
    expect(parseMilliseconds('2.5')).toBe(2.5);
    expect(parsePercent('50%')).toBe(50);
    expect(() => parsePercent('150')).toThrow(/from 1 to 100/);
  });
});
