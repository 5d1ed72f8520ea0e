import { describe, expect, it } from 'vitest';
import { describeModelStates, renderStatus } from './status.command.js';

describe('renderStatus', () => {
  it('prints the latest revision and one aligned row per node with lag and model states', () => {
    const text = renderStatus({
      revision: 12,
      nodes: [
        {
          role: 'gateway',
          id: 'gw-1',
          address: '10.0.0.2:8080',
          revision: 12,
          lag: 0,
          models: {},
          lastSeenMs: 400,
        },
        {
          role: 'worker',
          id: 'worker-a',
          address: '10.0.0.1:8001',
          workerGroup: 'default',
          revision: 10,
          lag: 2,
          models: { 'sst2:2': 'LOADING', 'sst2:1': 'READY' },
          lastSeenMs: 1250,
        },
      ],
    });
    expect(text.split('\n')).toEqual([
      'latest revision 12',
      '',
      'ROLE     ID        ADDRESS        GROUP    REVISION  LAG      SEEN  MODELS',
      'gateway  gw-1      10.0.0.2:8080  -              12    0  0.4s ago  -',
      'worker   worker-a  10.0.0.1:8001  default        10    2  1.3s ago  sst2:1 READY, sst2:2 LOADING',
    ]);
  });

  it('shows the registry’s note and an empty table when it cannot see nodes', () => {
    const text = renderStatus({ revision: 3, nodes: [], note: 'REDIS_URL is not set' });
    expect(text).toContain('(no live nodes)');
    expect(text.endsWith('note: REDIS_URL is not set')).toBe(true);
  });

  it('lists each failed model under the table with its node and reason', () => {
    const text = renderStatus({
      revision: 4,
      nodes: [
        {
          role: 'worker',
          id: 'worker-a',
          address: '10.0.0.1:8001',
          workerGroup: 'default',
          revision: 4,
          lag: 0,
          models: { 'sst2:1': 'READY', 'sst2:2': 'FAILED' },
          reasons: { 'sst2:2': 'no such file (attempt 2 of 6; retrying in 2 s)' },
          lastSeenMs: 100,
        },
      ],
    });
    expect(text.split('\n').slice(-2)).toEqual([
      'degraded (models that failed to load or stopped serving):',
      '  worker-a sst2:2: no such file (attempt 2 of 6; retrying in 2 s)',
    ]);
  });

  it('lists each endpoint a gateway cannot serve with its reason, and not the servable ones', () => {
    const text = renderStatus({
      revision: 4,
      nodes: [
        {
          role: 'gateway',
          id: 'gw-1',
          address: '10.0.0.2:8080',
          revision: 4,
          lag: 0,
          models: {},
          endpoints: {
            sentiment: { ready: true },
            orphan: { ready: false, reason: "model orphan:1: worker group 'nowhere' has no workers" },
          },
          lastSeenMs: 100,
        },
      ],
    });
    expect(text.split('\n').slice(-2)).toEqual([
      'endpoints a gateway cannot serve (it stays ready for the others):',
      "  gw-1 orphan: model orphan:1: worker group 'nowhere' has no workers",
    ]);
  });

  it('adds each gateway’s endpoints, servable or not, under -o wide', () => {
    const status = {
      revision: 4,
      nodes: [
        {
          role: 'gateway' as const,
          id: 'gw-1',
          address: '10.0.0.2:8080',
          revision: 4,
          lag: 0,
          models: {},
          endpoints: { vectors: { ready: false, reason: 'no worker' }, sentiment: { ready: true } },
          lastSeenMs: 100,
        },
        {
          role: 'worker' as const,
          id: 'w-1',
          address: '10.0.0.1:8001',
          revision: 4,
          lag: 0,
          models: {},
          lastSeenMs: 100,
        },
      ],
    };
    const [, , header, gateway, worker] = renderStatus(status, true).split('\n');
    expect(header).toMatch(/MODELS {2}ENDPOINTS$/);
    expect(gateway).toMatch(/ {2}sentiment ready, vectors not ready$/);
    expect(worker).toMatch(/ -$/);
    expect(renderStatus(status).split('\n')[2]).toMatch(/MODELS$/);
  });

  it('prints a dash for a node without models', () => {
    expect(describeModelStates({})).toBe('-');
  });
});
