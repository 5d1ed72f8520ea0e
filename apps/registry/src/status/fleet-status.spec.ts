import { type NodeHeartbeat } from '@modelgate/config-sync';
import { describe, expect, it } from 'vitest';
import { buildFleetStatus, countNodesByRole } from './fleet-status.js';

function beat(overrides: Partial<NodeHeartbeat> & Pick<NodeHeartbeat, 'role' | 'id'>): NodeHeartbeat {
  return { address: '10.0.0.1:8001', revision: 7, models: {}, reasons: {}, at: 1_000, ...overrides };
}

describe('buildFleetStatus', () => {
  it('computes each node’s lag behind the latest revision and how long ago it was seen', () => {
    const status = buildFleetStatus(
      9,
      [
        beat({
          role: 'worker',
          id: 'w1',
          revision: 7,
          workerGroup: 'gpu',
          models: { 'sst2:1': 'READY', 'sst2:2': 'FAILED' },
          reasons: { 'sst2:2': 'artifact store unreachable (gave up after 6 attempts)' },
        }),
        beat({ role: 'gateway', id: 'g1', revision: 9, address: '10.0.0.2:8080', at: 1_500 }),
      ],
      2_000,
    );
    expect(status).toEqual({
      revision: 9,
      nodes: [
        {
          role: 'gateway',
          id: 'g1',
          address: '10.0.0.2:8080',
          revision: 9,
          lag: 0,
          models: {},
          reasons: {},
          lastSeenMs: 500,
        },
        {
          role: 'worker',
          id: 'w1',
          address: '10.0.0.1:8001',
          workerGroup: 'gpu',
          revision: 7,
          lag: 2,
          models: { 'sst2:1': 'READY', 'sst2:2': 'FAILED' },
          reasons: { 'sst2:2': 'artifact store unreachable (gave up after 6 attempts)' },
          lastSeenMs: 1_000,
        },
      ],
    });
  });

  it('passes on what a gateway reports of each endpoint’s servability', () => {
    const endpoints = {
      sentiment: { ready: true },
      orphan: { ready: false, reason: "model orphan:1: worker group 'nowhere' has no workers" },
    };
    const [gateway, worker] = buildFleetStatus(
      1,
      [beat({ role: 'gateway', id: 'g1', endpoints }), beat({ role: 'worker', id: 'w1' })],
      1_000,
    ).nodes;
    expect(gateway?.endpoints).toEqual(endpoints);
    expect(worker).not.toHaveProperty('endpoints');
  });

  it('gives a node that has applied no revision yet a null lag', () => {
    const [node] = buildFleetStatus(3, [beat({ role: 'worker', id: 'w1', revision: null })], 1_000).nodes;
    expect(node?.lag).toBeNull();
    expect(node?.revision).toBeNull();
  });

  it('never reports a negative lag or age when a heartbeat is newer than the revision read', () => {
    const [node] = buildFleetStatus(
      4,
      [beat({ role: 'worker', id: 'w1', revision: 5, at: 2_000 })],
      1_000,
    ).nodes;
    expect(node?.lag).toBe(0);
    expect(node?.lastSeenMs).toBe(0);
  });

  it('sorts nodes by role, then id', () => {
    const ids = buildFleetStatus(
      1,
      [
        beat({ role: 'worker', id: 'b' }),
        beat({ role: 'worker', id: 'a' }),
        beat({ role: 'gateway', id: 'z' }),
      ],
      1_000,
    ).nodes.map((node) => `${node.role}/${node.id}`);
    expect(ids).toEqual(['gateway/z', 'worker/a', 'worker/b']);
  });
});

describe('countNodesByRole', () => {
  it('counts live nodes per role, with 0 for roles without any', () => {
    expect(countNodesByRole([{ role: 'worker' }, { role: 'worker' }, { role: 'gateway' }])).toEqual({
      gateway: 1,
      worker: 2,
      registry: 0,
    });
  });
});
