import { ErrorCode, type Route } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { pinVersion } from './pin-version.js';

const model = (name: string, version: string): { id: string; name: string; version: string } => ({
  id: `${name}:${version}`,
  name,
  version,
});
const MODELS = [
  model('sst2', '1'),
  model('sst2', '2'),
  model('sst2', '3'),
  model('distil', '3'),
  model('other', '9'),
];
const ROUTES: Route[] = [
  { model: 'distil:1', weight: 10, role: 'canary' },
  { model: 'sst2:1', weight: 90, role: 'primary' },
];

describe('pinVersion', () => {
  it('finds a version of the endpoint model name even when no route points at it', () => {
    expect(pinVersion(ROUTES, MODELS, '2')).toEqual(model('sst2', '2'));
  });

  it("prefers the primary's model name when several of the endpoint's names have the version", () => {
    expect(pinVersion(ROUTES, MODELS, '3')).toEqual(model('sst2', '3'));
  });

  it('falls back to canary and shadow model names', () => {
    expect(pinVersion([...ROUTES, { model: 'other:1', weight: 5, role: 'shadow' }], MODELS, '9')).toEqual(
      model('other', '9'),
    );
  });

  it('answers NOT_FOUND for a version the snapshot lacks, a malformed one, or a model of another endpoint', () => {
    const notFound: unknown = expect.objectContaining({
      code: ErrorCode.NOT_FOUND,
      details: { field: 'version' },
    });
    expect(() => pinVersion(ROUTES, MODELS, '4', 'sentiment')).toThrow(notFound);
    expect(() => pinVersion(ROUTES, MODELS, '4', 'sentiment')).toThrow(
      "sentiment has no model version '4' (its models: sst2, distil)",
    );
    expect(() => pinVersion(ROUTES, MODELS, '01')).toThrow(notFound);
    expect(() => pinVersion(ROUTES, MODELS, '9')).toThrow(notFound);
    expect(() => pinVersion([], MODELS, '1')).toThrow(/it has no routes/);
  });
});
