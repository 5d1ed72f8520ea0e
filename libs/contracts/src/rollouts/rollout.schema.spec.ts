import { describe, expect, it } from 'vitest';
import { safeParseWith } from '../config/validation-issues.js';
import { startRolloutSchema } from './rollout.schema.js';

describe('startRolloutSchema', () => {
  it('fills in the defaults: steps 5, 25, 50, 100 every 2 minutes, 1 % errors, 95 % agreement, 100 requests', () => {
    expect(startRolloutSchema.parse({ to: 'sst2:2' })).toEqual({
      to: 'sst2:2',
      steps: [5, 25, 50, 100],
      intervalSeconds: 120,
      maxErrorRate: 0.01,
      minAgreement: 0.95,
      minRequests: 100,
      shadowPercent: 100,
    });
  });

  it.each([
    [{ steps: [10, 50] }, 'steps: must end at 100'],
    [{ steps: [50, 10, 100] }, 'steps: must be strictly ascending'],
    [{ steps: [] }, 'steps'],
    [{ intervalSeconds: 0 }, 'intervalSeconds'],
    [{ maxErrorRate: 2 }, 'maxErrorRate'],
    [{ shadowPercent: 0 }, 'shadowPercent'],
    [{ to: 'sst2' }, 'to'],
    [{ unknown: 1 }, 'unknown'],
  ])('refuses %j, naming the field', (patch, field) => {
    const outcome = safeParseWith(startRolloutSchema, { to: 'sst2:2', ...patch }, 'rollout');
    expect(outcome.success).toBe(false);
    if (!outcome.success) expect(outcome.error.message).toContain(field);
  });
});
