import { describe, expect, it } from 'vitest';
import { safeParseWith } from '../config/validation-issues.js';
import { startRolloutSchema } from './rollout.schema.js';

describe('startRolloutSchema', () => {
  it('fills in the steps 5, 25, 50, 100 and leaves what was not given absent (the registry applies the defaults)', () => {
    expect(startRolloutSchema.parse({ to: 'sst2:2' })).toEqual({ to: 'sst2:2', steps: [5, 25, 50, 100] });
  });

  it('takes steps [100] alone, and with a shadow phase judged on its errors and volume', () => {
    expect(safeParseWith(startRolloutSchema, { to: 'sst2:2', steps: [100] }, 'rollout').success).toBe(true);
    const shadow = { to: 'sst2:2', steps: [100], shadowFirstSeconds: 60, maxErrorRate: 0, minRequests: 10 };
    expect(safeParseWith(startRolloutSchema, shadow, 'rollout').success).toBe(true);
  });

  it('takes shadowPercent and minAgreement with a shadow phase', () => {
    const parsed = startRolloutSchema.parse({
      to: 'sst2:2',
      shadowFirstSeconds: 60,
      shadowPercent: 20,
      minAgreement: 0.9,
    });
    expect(parsed).toMatchObject({ shadowFirstSeconds: 60, shadowPercent: 20, minAgreement: 0.9 });
  });

  it.each([
    [{ steps: [10, 50] }, 'steps: must end at 100'],
    [{ steps: [50, 10, 100] }, 'steps: must be strictly ascending'],
    [{ steps: [] }, 'steps'],
    [{ intervalSeconds: 0 }, 'intervalSeconds'],
    [{ maxErrorRate: 2 }, 'maxErrorRate'],
    [{ shadowFirstSeconds: 60, shadowPercent: 0 }, 'shadowPercent'],
    [{ shadowPercent: 50 }, 'shadowPercent: applies to the shadow phase: give shadowFirstSeconds too'],
    [{ minAgreement: 0.9 }, 'minAgreement: is checked on mirrored rows, which only the shadow phase makes'],
    // steps [100] has no live window: its thresholds would be stored and never judged.
    [{ steps: [100], maxP99Ms: 1 }, 'maxP99Ms: is judged on live windows, and steps [100] has none'],
    [{ steps: [100], intervalSeconds: 3600 }, 'intervalSeconds: is judged on live windows'],
    [{ steps: [100], maxErrorRate: 0 }, 'maxErrorRate: is judged on live windows'],
    [{ steps: [100], minRequests: 1_000_000 }, 'minRequests: is judged on live windows'],
    // Given means given, even at the default's value: it would be stored and never used all the same.
    [{ steps: [100], intervalSeconds: 120 }, 'intervalSeconds: is judged on live windows'],
    [{ steps: [100], maxErrorRate: 0.01 }, 'maxErrorRate: is judged on live windows'],
    [{ steps: [100], minRequests: 100 }, 'minRequests: is judged on live windows'],
    [
      { steps: [100], shadowFirstSeconds: 60, intervalSeconds: 30 },
      'intervalSeconds: is the length of live windows, and steps [100] has none: the shadow phase is the only window',
    ],
    [
      { steps: [100], shadowFirstSeconds: 60, maxP99Ms: 1 },
      'the shadow phase judges errors, agreement and volume, not latency',
    ],
    [{ to: 'sst2' }, 'to'],
    [{ unknown: 1 }, 'unknown'],
  ])('refuses %j, naming the field', (patch, field) => {
    const outcome = safeParseWith(startRolloutSchema, { to: 'sst2:2', ...patch }, 'rollout');
    expect(outcome.success).toBe(false);
    if (!outcome.success) expect(outcome.error.message).toContain(field);
  });
});
