import { type HeartbeatReader, type NodeHeartbeat } from '@modelgate/config-sync';
import { InferenceClient } from '@modelgate/inference-client';
import { createLogger } from '@modelgate/observability';
import { describe, expect, it } from 'vitest';
import { WorkerDiscovery, discoveredGroup } from './worker-discovery.js';

const worker = (address: string, models: Record<string, string>): NodeHeartbeat => ({
  role: 'worker',
  id: address,
  address,
  revision: 1,
  models,
  reasons: {},
  at: 0,
});

function discoveryOver(rounds: NodeHeartbeat[][]) {
  const reader = { read: () => Promise.resolve(rounds.shift() ?? []), close: () => undefined };
  const client = new InferenceClient({ createChannel: () => ({}) as never });
  const discovery = new WorkerDiscovery(
    reader as unknown as HeartbeatReader,
    client,
    1000,
    createLogger({ app: 'test', level: 'silent' }),
  );
  return { discovery, client };
}

describe('WorkerDiscovery', () => {
  it('routes a model to the workers whose heartbeat says READY, and drops one whose heartbeat is gone', async () => {
    const { discovery, client } = discoveryOver([
      [worker('a:1', { 'm:1': 'READY' }), worker('b:1', { 'm:1': 'READY', 'm:2': 'LOADING' })],
      [worker('a:1', { 'm:1': 'READY' })],
    ]);
    await discovery.refresh();
    expect(client.addressesOf(discoveredGroup('m:1'))).toEqual(['a:1', 'b:1']);
    expect(client.addressesOf(discoveredGroup('m:2'))).toEqual([]);
    await discovery.refresh();
    expect(client.addressesOf(discoveredGroup('m:1'))).toEqual(['a:1']);
  });

  it('keeps the known workers when Redis comes back empty after a restart', async () => {
    const { discovery, client } = discoveryOver([[worker('a:1', { 'm:1': 'READY' })], []]);
    await discovery.refresh();
    await discovery.refresh();
    expect(client.addressesOf(discoveredGroup('m:1'))).toEqual(['a:1']);
  });
});
