import { describe, expect, it } from 'vitest';
import { asJsonObject, isPositiveInt } from './config-fields.js';

describe('config.json field readers', () => {
  it('read a JSON object as one, and anything else (an array, null, a number) as absent', () => {
    expect(asJsonObject({ n_positions: 1024 })).toEqual({ n_positions: 1024 });
    for (const value of [[1, 2], null, 3, 'text', undefined]) expect(asJsonObject(value)).toBeUndefined();
  });

  it('take positive safe integers as lengths and nothing else', () => {
    expect([512, 1].every(isPositiveInt)).toBe(true);
    expect([0, -1, 1.5, 2 ** 53, '512', null].some(isPositiveInt)).toBe(false);
  });
});
