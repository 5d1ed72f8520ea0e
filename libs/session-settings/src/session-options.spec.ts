import { describe, expect, it } from 'vitest';
import { sessionOptions } from './session-options.js';

const CPU = [{ name: 'cpu' as const }];

/** The `session.*` config entries onnxruntime-node flattens `extra.session` into. */
function sessionEntries(options: ReturnType<typeof sessionOptions>): Record<string, unknown> {
  return (options.extra as { session: Record<string, unknown> }).session;
}

describe('sessionOptions', () => {
  it('opens an instance with spinning off between and within runs', () => {
    const options = sessionOptions(CPU, { intraOpThreads: 1 });
    expect(options.intraOpNumThreads).toBe(1);
    expect(sessionEntries(options)).toEqual({
      intra_op: { allow_spinning: '0' },
      inter_op: { allow_spinning: '0' },
    });
  });

  it('lets a solo session spin within a run and stop as soon as the run returns', () => {
    const options = sessionOptions(CPU, { intraOpThreads: 2, spinWithinRuns: true });
    expect(options.intraOpNumThreads).toBe(2);
    expect(sessionEntries(options)).toEqual({
      intra_op: { allow_spinning: '1' },
      inter_op: { allow_spinning: '0' },
      force_spinning_stop: '1',
    });
  });

  it("lets the inline session go on spinning after a run, for onnxruntime's own bounded while", () => {
    const options = sessionOptions(CPU, { intraOpThreads: 2, spinWithinRuns: true, spinAfterRuns: true });
    expect(sessionEntries(options)).toEqual({
      intra_op: { allow_spinning: '1' },
      inter_op: { allow_spinning: '0' },
    });
    // Without spinning within runs there is nothing to go on with.
    expect(sessionEntries(sessionOptions(CPU, { intraOpThreads: 2, spinAfterRuns: true }))).toEqual({
      intra_op: { allow_spinning: '0' },
      inter_op: { allow_spinning: '0' },
    });
  });

  it('keeps spinning off for a session of one thread, which has no pool to spin', () => {
    const options = sessionOptions(CPU, { intraOpThreads: 1, spinWithinRuns: true });
    expect(sessionEntries(options)).toEqual({
      intra_op: { allow_spinning: '0' },
      inter_op: { allow_spinning: '0' },
    });
  });

  it('keeps spinning off for a multi-threaded session not marked to spin', () => {
    const options = sessionOptions(CPU, { intraOpThreads: 4 });
    expect(sessionEntries(options)).toMatchObject({ intra_op: { allow_spinning: '0' } });
    expect(sessionEntries(options)).not.toHaveProperty('force_spinning_stop');
  });

  it("passes the attempt's providers in order and optimises the whole graph", () => {
    const providers = [{ name: 'cuda' as const, deviceId: 1 }, { name: 'cpu' as const }];
    const options = sessionOptions(providers, { intraOpThreads: 2 });
    expect(options.executionProviders).toEqual(providers);
    expect(options.executionProviders).not.toBe(providers);
    expect(options.graphOptimizationLevel).toBe('all');
  });
});
