import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { RolloutTraffic, countsAsModelFailure } from './rollout-traffic.js';

describe('RolloutTraffic', () => {
  it('counts served requests per endpoint and model, failures and latency buckets included', () => {
    const traffic = new RolloutTraffic([0.01, 0.1]);
    traffic.recordServed('e', 'm:1', false, 0.005);
    traffic.recordServed('e', 'm:1', true, 0.05);
    traffic.recordServed('e', 'm:1', false, 3);
    traffic.recordServed('other', 'm:1', false, 0.01);
    const report = traffic.report();
    expect(report.latencyBoundsSeconds).toEqual([0.01, 0.1]);
    expect(report.endpoints.e?.['m:1']).toEqual({
      served: 3,
      failed: 1,
      latency: [1, 1, 1],
      mirrored: 0,
      mirrorFailed: 0,
      agreeing: 0,
      disagreeing: 0,
      uncompared: 0,
    });
    expect(report.endpoints.other?.['m:1']?.latency).toEqual([1, 0, 0]);
  });

  it('counts mirrors that were sent and the rows compared, not dropped mirrors', () => {
    const traffic = new RolloutTraffic([1]);
    traffic.recordMirror('e', 'm:2', 'ok');
    traffic.recordMirror('e', 'm:2', 'error');
    traffic.recordMirror('e', 'm:2', 'dropped');
    traffic.recordAgreement('e', 'm:2', 3, 1);
    traffic.recordUncompared('e', 'm:2', 2);
    expect(traffic.report().endpoints.e?.['m:2']).toMatchObject({
      served: 0,
      mirrored: 2,
      mirrorFailed: 1,
      agreeing: 3,
      disagreeing: 1,
      uncompared: 2,
    });
  });

  it('reports a copy under an epoch of its own', () => {
    const traffic = new RolloutTraffic([1]);
    traffic.recordServed('e', 'm:1', false, 0.1);
    const first = traffic.report();
    traffic.recordServed('e', 'm:1', false, 0.1);
    expect(first.endpoints.e?.['m:1']?.served).toBe(1);
    expect(first.epoch).not.toBe(new RolloutTraffic([1]).report().epoch);
  });
});

describe('countsAsModelFailure', () => {
  it.each([
    [ErrorCode.INTERNAL, true],
    [ErrorCode.UNAVAILABLE, true],
    [ErrorCode.DEADLINE_EXCEEDED, true],
    [ErrorCode.INVALID_ARGUMENT, false],
    [ErrorCode.TOKEN_LIMIT_EXCEEDED, false],
    [ErrorCode.QUEUE_FULL, false],
    [ErrorCode.CANCELLED, false],
  ])('%s → %s', (code, failure) => {
    expect(countsAsModelFailure(new ModelgateError(code, 'x'))).toBe(failure);
  });

  it('counts an unexpected error against the model', () => {
    expect(countsAsModelFailure(new Error('boom'))).toBe(true);
  });
});
