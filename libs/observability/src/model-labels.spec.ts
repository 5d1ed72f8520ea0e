import { describe, expect, it } from 'vitest';
import { modelLabels } from './model-labels.js';

describe('modelLabels', () => {
  it('splits a model id into model and version labels', () => {
    expect(modelLabels('sst2:1')).toEqual({ model: 'sst2', version: '1' });
  });

  it('splits at the last colon, so a name keeps any colon of its own', () => {
    expect(modelLabels('org:sst2:v2')).toEqual({ model: 'org:sst2', version: 'v2' });
  });

  it('labels an id without a version with version "none"', () => {
    expect(modelLabels('none')).toEqual({ model: 'none', version: 'none' });
    expect(modelLabels('unknown')).toEqual({ model: 'unknown', version: 'none' });
  });
});
