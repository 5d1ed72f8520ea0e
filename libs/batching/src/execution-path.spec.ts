import { describe, expect, it } from 'vitest';
import { type ExecutionCandidate, RunTimeEstimator, chooseExecutionPath } from './execution-path.js';

const LIMITS = { maxInlineMicros: 10_000 };

/** A batch that finds the model idle, with an inline solo session measured at 3 ms. */
const idle = (overrides: Partial<ExecutionCandidate> = {}): ExecutionCandidate => ({
  solo: 'idle',
  soloInline: true,
  otherBatchesRunning: 0,
  rowsQueued: 0,
  inlineAllowed: true,
  estimatedMicros: 3000,
  ...overrides,
});

describe('chooseExecutionPath', () => {
  it('runs a short batch that finds the model idle inline', () => {
    expect(chooseExecutionPath(idle(), LIMITS)).toEqual({ path: 'inline', reason: 'alone-inline' });
  });

  it('sends every batch to an instance when the model has no solo session', () => {
    expect(chooseExecutionPath(idle({ solo: 'none' }), LIMITS)).toEqual({
      path: 'instance',
      reason: 'no-solo-session',
    });
  });

  it('sends a batch that starts while the inline run is in progress to an instance', () => {
    expect(chooseExecutionPath(idle({ solo: 'busy' }), LIMITS)).toEqual({
      path: 'instance',
      reason: 'solo-busy',
    });
  });

  it('keeps the batched path under load: another batch running or rows queued', () => {
    expect(chooseExecutionPath(idle({ otherBatchesRunning: 1 }), LIMITS).reason).toBe('model-busy');
    expect(chooseExecutionPath(idle({ rowsQueued: 3 }), LIMITS).reason).toBe('model-busy');
  });

  it('takes a solo session on its own thread for a lone batch whatever its length', () => {
    const long = idle({ soloInline: false, estimatedMicros: 500_000 });
    expect(chooseExecutionPath(long, LIMITS)).toEqual({ path: 'solo', reason: 'alone' });
    expect(chooseExecutionPath(idle({ soloInline: false, estimatedMicros: undefined }), LIMITS).path).toBe(
      'solo',
    );
  });

  it('never runs a batch inline that needs a session thread', () => {
    expect(chooseExecutionPath(idle({ inlineAllowed: false }), LIMITS)).toEqual({
      path: 'instance',
      reason: 'thread-required',
    });
  });

  it('waits for a measurement before running anything inline', () => {
    expect(chooseExecutionPath(idle({ estimatedMicros: undefined }), LIMITS).reason).toBe('unmeasured');
  });

  it('keeps a batch expected to pass maxInlineMicros off the event loop, and admits one exactly at it', () => {
    expect(chooseExecutionPath(idle({ estimatedMicros: 10_001 }), LIMITS)).toEqual({
      path: 'instance',
      reason: 'too-long',
    });
    expect(chooseExecutionPath(idle({ estimatedMicros: 10_000 }), LIMITS).path).toBe('inline');
  });
});

describe('RunTimeEstimator', () => {
  it('knows nothing before its first measurement', () => {
    expect(new RunTimeEstimator().estimate(10)).toBeUndefined();
  });

  it('scales a measured run to a batch of other size', () => {
    const estimator = new RunTimeEstimator();
    estimator.observe(8, 4000); // 500 µs a unit
    expect(estimator.estimate(8)).toBe(4000);
    expect(estimator.estimate(32)).toBe(16_000);
  });

  it('follows later runs by the weight given', () => {
    const estimator = new RunTimeEstimator(0.5);
    estimator.observe(1, 1000);
    estimator.observe(1, 3000);
    expect(estimator.estimate(1)).toBe(2000);
    estimator.observe(2, 2000); // 1000 a unit
    expect(estimator.estimate(1)).toBe(1500);
  });

  it('ignores runs of no units and runs with no finite time', () => {
    const estimator = new RunTimeEstimator();
    estimator.observe(0, 1000);
    estimator.observe(4, Number.NaN);
    estimator.observe(4, Number.POSITIVE_INFINITY);
    expect(estimator.estimate(1)).toBeUndefined();
  });

  it('refuses a weight outside (0, 1]', () => {
    expect(() => new RunTimeEstimator(0)).toThrow(RangeError);
    expect(() => new RunTimeEstimator(1.5)).toThrow(RangeError);
  });
});
