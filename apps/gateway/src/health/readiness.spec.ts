import { describe, expect, it } from 'vitest';
import { decideReadiness } from './readiness.js';

describe('decideReadiness', () => {
  it('is ready once a config revision is applied', () => {
    expect(decideReadiness({ revision: 3, shuttingDown: false })).toEqual({ ready: true, reason: 'serving' });
  });

  it('is not ready before the first revision', () => {
    expect(decideReadiness({ revision: undefined, shuttingDown: false })).toEqual({
      ready: false,
      reason: 'no-revision',
    });
  });

  it('is not ready from the termination signal on, revision or not', () => {
    for (const revision of [7, undefined]) {
      expect(decideReadiness({ revision, shuttingDown: true })).toEqual({
        ready: false,
        reason: 'shutting-down',
      });
    }
  });
});
