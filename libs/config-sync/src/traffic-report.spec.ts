import { describe, expect, it } from 'vitest';
import { parseHeartbeat } from './node-heartbeat.js';
import { emptyModelTraffic } from './traffic-report.js';

const beat = { role: 'gateway', id: 'g1', address: 'g1:8080', revision: 3, models: {}, at: 1 };

describe('a gateway heartbeat’s traffic counters', () => {
  it('round-trip', () => {
    const traffic = {
      epoch: 'e1',
      latencyBoundsSeconds: [0.01, 0.1],
      endpoints: { sentiment: { 'sst2:2': { ...emptyModelTraffic(3), served: 4, latency: [4, 0, 0] } } },
    };
    expect(parseHeartbeat(JSON.stringify({ ...beat, traffic }))?.traffic).toEqual(traffic);
  });

  it('are dropped when malformed, never the heartbeat (discovery keeps the node)', () => {
    const parsed = parseHeartbeat(JSON.stringify({ ...beat, traffic: { epoch: 'e1', endpoints: 'nope' } }));
    expect(parsed).toMatchObject({ id: 'g1', revision: 3 });
    expect(parsed?.traffic).toBeUndefined();
  });
});
