import { describe, expect, it } from 'vitest';
import { applyJsonPath, checkJsonPath } from './jsonpath.js';

const endpoint = {
  name: 'sentiment',
  routes: [
    { model: 'sst2:1', weight: 90, role: 'primary' },
    { model: 'sst2:2', weight: 10, role: 'canary' },
  ],
  preprocessing: { maxTokens: 128 },
  'sticky-header': null,
};

describe('-o jsonpath', () => {
  it('prints what paths select, text around them as is', () => {
    expect(applyJsonPath('{.name}', endpoint)).toBe('sentiment');
    expect(applyJsonPath('{$.routes[0].model}', endpoint)).toBe('sst2:1');
    expect(applyJsonPath('{.routes[-1].weight}', endpoint)).toBe('10');
    expect(applyJsonPath('{.routes[*].model}', endpoint)).toBe('sst2:1 sst2:2');
    expect(applyJsonPath("max {.preprocessing['maxTokens']} tokens", endpoint)).toBe('max 128 tokens');
    expect(applyJsonPath('{.preprocessing}', endpoint)).toBe('{"maxTokens":128}');
    expect(applyJsonPath("{['sticky-header']}", endpoint)).toBe('null');
    expect(applyJsonPath('{[*].name}', [endpoint, { name: 'embed' }])).toBe('sentiment embed');
  });

  it('repeats a range body for each element, with string literals', () => {
    expect(applyJsonPath('{range .routes[*]}{.model}={.weight}{"\\n"}{end}', endpoint)).toBe(
      'sst2:1=90\nsst2:2=10\n',
    );
  });

  it('refuses a template it cannot read, and a path that selects nothing', () => {
    expect(() => checkJsonPath('{.name')).toThrow("'{' at 1 is never closed");
    expect(() => checkJsonPath('{range .routes[*]}{.model}')).toThrow('{range} without {end}');
    expect(() => checkJsonPath('{end}')).toThrow('{end} without {range}');
    expect(() => checkJsonPath('{name}')).toThrow("unexpected 'n' at 1");
    expect(() => checkJsonPath('')).toThrow('needs a template');
    expect(() => applyJsonPath('{.nope}', endpoint)).toThrow('.nope selects nothing in the answer');
  });
});
