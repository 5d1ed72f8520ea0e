import { type ModelTraffic, type NodeHeartbeat, emptyModelTraffic } from '@modelgate/config-sync';
import { describe, expect, it } from 'vitest';
import { parseBaseline, takeBaseline, windowSince } from './rollout-window.js';

const BOUNDS = [0.01, 0.1, 1];
const counters = (overrides: Partial<ModelTraffic>): ModelTraffic => ({
  ...emptyModelTraffic(4),
  ...overrides,
});

/** A gateway heartbeat carrying `traffic` for endpoint `e`, model `m:2`. */
function gateway(id: string, epoch: string, traffic: ModelTraffic, bounds = BOUNDS): NodeHeartbeat {
  return {
    role: 'gateway',
    id,
    address: `${id}:8080`,
    revision: 1,
    models: {},
    reasons: {},
    at: 0,
    traffic: { epoch, latencyBoundsSeconds: bounds, endpoints: { e: { 'm:2': traffic } } },
  };
}

describe('windowSince', () => {
  it('sums what each gateway counted since the baseline', () => {
    const start = [
      gateway('g1', 'a', counters({ served: 10, failed: 1, latency: [5, 5, 0, 0] })),
      gateway('g2', 'b', counters({ served: 4, latency: [4, 0, 0, 0] })),
    ];
    const end = [
      gateway('g1', 'a', counters({ served: 30, failed: 2, latency: [20, 10, 0, 0], agreeing: 3 })),
      gateway('g2', 'b', counters({ served: 14, latency: [10, 3, 1, 0], disagreeing: 1, uncompared: 5 })),
    ];
    const window = windowSince(takeBaseline(start, 'e', 'm:2'), end, 'e', 'm:2', true);
    expect(window).toMatchObject({
      requests: 30,
      errors: 1,
      agreeing: 3,
      disagreeing: 1,
      uncompared: 5,
      comparesAnswers: true,
    });
    expect(window.latency).toEqual({ bounds: [...BOUNDS, Infinity], cumulative: [21, 29, 30, 30] });
  });

  it('counts a restarted gateway (new epoch) from zero, never negative', () => {
    const start = [gateway('g1', 'a', counters({ served: 100, failed: 50, latency: [100, 0, 0, 0] }))];
    const end = [gateway('g1', 'b', counters({ served: 120, failed: 1, latency: [120, 0, 0, 0] }))];
    expect(windowSince(takeBaseline(start, 'e', 'm:2'), end, 'e', 'm:2', true)).toMatchObject({
      requests: 120,
      errors: 1,
    });
  });

  it('counts a gateway whose counters went down from zero even under the same epoch', () => {
    const start = [gateway('g1', 'a', counters({ served: 100, latency: [100, 0, 0, 0] }))];
    const end = [gateway('g1', 'a', counters({ served: 7, latency: [7, 0, 0, 0] }))];
    expect(windowSince(takeBaseline(start, 'e', 'm:2'), end, 'e', 'm:2', true).requests).toBe(7);
  });

  it('counts a gateway that joined during the window from zero, and forgets one that left', () => {
    const start = [gateway('g1', 'a', counters({ served: 10, latency: [10, 0, 0, 0] }))];
    const end = [gateway('g2', 'b', counters({ served: 5, latency: [5, 0, 0, 0] }))];
    expect(windowSince(takeBaseline(start, 'e', 'm:2'), end, 'e', 'm:2', true).requests).toBe(5);
  });

  it('reads only gateways, and only the endpoint and model asked for', () => {
    const worker: NodeHeartbeat = { ...gateway('w1', 'a', counters({ served: 9 })), role: 'worker' };
    const other = gateway('g1', 'a', counters({ served: 3 }));
    expect(windowSince({ nodes: {} }, [worker, other], 'e', 'm:3', true).requests).toBe(0);
    expect(windowSince({ nodes: {} }, [worker, other], 'e', 'm:2', true).requests).toBe(3);
  });

  it('leaves out the latency of a gateway with other bucket bounds, still counting its requests', () => {
    const end = [
      gateway('g1', 'a', counters({ served: 2, latency: [2, 0, 0, 0] })),
      gateway('g2', 'b', counters({ served: 3, latency: [0, 0, 3] }), [0.5, 5]),
    ];
    const window = windowSince({ nodes: {} }, end, 'e', 'm:2', false);
    expect(window.requests).toBe(5);
    expect(window.latency.cumulative).toEqual([2, 2, 2, 2]);
    expect(window.comparesAnswers).toBe(false);
  });
});

describe('parseBaseline', () => {
  it('reads a stored baseline back, and treats anything else as empty', () => {
    const baseline = takeBaseline([gateway('g1', 'a', counters({ served: 1 }))], 'e', 'm:2');
    expect(parseBaseline(JSON.parse(JSON.stringify(baseline)))).toEqual(baseline);
    expect(parseBaseline(null)).toEqual({ nodes: {} });
    expect(parseBaseline({ nodes: { g1: { epoch: 1 } } })).toEqual({ nodes: {} });
  });
});
