import { type NodeReport, emptyModelTraffic } from '@modelgate/config-sync';
import { describe, expect, it } from 'vitest';
import { PodReport } from './pod-report.js';

const BOUNDS = [0.01, 0.1];

/** A loop's report: `served` requests of sst2:1 on `sentiment`, all in the first latency bucket. */
function loopReport(revision: number | null, served: number, extra: Partial<NodeReport> = {}): NodeReport {
  return {
    role: 'gateway',
    id: `loop-${served}`,
    address: 'ignored:1',
    revision,
    models: {},
    traffic: {
      epoch: `loop-epoch-${served}`,
      latencyBoundsSeconds: BOUNDS,
      endpoints: { sentiment: { 'sst2:1': { ...emptyModelTraffic(3), served, latency: [served, 0, 0] } } },
    },
    ...extra,
  };
}

const pod = () => new PodReport({ id: 'pod-a:1', address: 'pod-a:8080' }, 'pod-epoch', BOUNDS);
const served = (report: NodeReport) => report.traffic?.endpoints.sentiment?.['sst2:1']?.served;

describe('PodReport: one heartbeat for the event loops of a gateway pod', () => {
  it('beats under the pod’s id, address and epoch, not a loop’s', () => {
    const report = pod();
    report.record(1, loopReport(4, 2));
    expect(report.describe()).toMatchObject({
      role: 'gateway',
      id: 'pod-a:1',
      address: 'pod-a:8080',
      traffic: { epoch: 'pod-epoch', latencyBoundsSeconds: BOUNDS },
    });
  });

  it('has no revision until every reporting loop has applied one, then the lowest', () => {
    const report = pod();
    expect(report.describe().revision).toBeNull();
    expect(report.record(1, loopReport(5, 1))).toBe(true);
    expect(report.record(2, loopReport(null, 1))).toBe(true);
    expect(report.describe().revision).toBeNull();
    expect(report.record(2, loopReport(4, 1))).toBe(true);
    expect(report.describe().revision).toBe(4);
    expect(report.record(2, loopReport(6, 2))).toBe(true);
    expect(report.describe().revision).toBe(5);
    expect(report.record(2, loopReport(6, 3))).toBe(false); // same revision: no extra beat
  });

  it('sums the loops’ traffic bucket by bucket', () => {
    const report = pod();
    report.record(1, loopReport(1, 3));
    report.record(2, loopReport(1, 4));
    expect(report.describe().traffic?.endpoints).toEqual({
      sentiment: { 'sst2:1': { ...emptyModelTraffic(3), served: 7, latency: [7, 0, 0] } },
    });
  });

  it('keeps an exited loop’s last counters, so the pod’s totals never go back when a loop restarts', () => {
    const report = pod();
    report.record(1, loopReport(1, 10));
    report.record(2, loopReport(1, 5));
    report.retire(2);
    expect(served(report.describe())).toBe(15);
    report.record(3, loopReport(1, 1)); // the replacement starts from zero
    expect(served(report.describe())).toBe(16);
  });

  it('forgets everything but the traffic of an exited loop', () => {
    const report = pod();
    report.record(1, loopReport(3, 1));
    report.record(2, loopReport(null, 1, { reasons: { 'sst2:2': 'tokenizer missing' } }));
    report.retire(2);
    expect(report.describe()).toMatchObject({ revision: 3, reasons: {} });
  });

  it('ignores traffic counted with other latency buckets', () => {
    const report = pod();
    const other = loopReport(1, 9);
    report.record(1, { ...other, traffic: { ...other.traffic!, latencyBoundsSeconds: [1] } });
    report.record(2, loopReport(1, 2));
    expect(served(report.describe())).toBe(2);
  });

  it('calls an endpoint servable only when every loop says so, else gives a reason', () => {
    const report = pod();
    report.record(
      1,
      loopReport(1, 1, { endpoints: { a: { ready: true }, b: { ready: true }, c: { ready: true } } }),
    );
    report.record(
      2,
      loopReport(1, 1, { endpoints: { a: { ready: true }, b: { ready: false, reason: 'no ready worker' } } }),
    );
    expect(report.describe().endpoints).toEqual({
      a: { ready: true },
      b: { ready: false, reason: 'no ready worker' },
      c: { ready: false, reason: 'not yet configured on every event loop' },
    });
  });

  it('lists every loop’s unservable models', () => {
    const report = pod();
    report.record(1, loopReport(1, 1, { reasons: { 'x:1': 'tokenizer fetch failed' } }));
    report.record(2, loopReport(1, 1, { reasons: { 'y:1': 'bad tokenizer' } }));
    expect(report.describe().reasons).toEqual({ 'x:1': 'tokenizer fetch failed', 'y:1': 'bad tokenizer' });
  });
});
