import { type EndpointSpec, type ModelSpec } from '@modelgate/contracts';
import { type InferenceClient } from '@modelgate/inference-client';
import { describe, expect, it } from 'vitest';
import { type EndpointTable } from '../endpoints/endpoint-table.js';
import { type EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { EndpointServabilityMonitor } from './endpoint-servability-monitor.js';

function tableOf(revision: number, groups: Record<string, string>): EndpointTable {
  const endpoints = new Map<string, EndpointSpec>(
    Object.keys(groups).map((name) => [
      name,
      { name, routes: [{ model: `${name}:1`, weight: 100, role: 'primary' }] } as EndpointSpec,
    ]),
  );
  const models = new Map(
    Object.entries(groups).map(([name, workerGroup]) => [
      `${name}:1`,
      { spec: { id: `${name}:1`, name, version: '1', workerGroup } as ModelSpec, inputNames: [] },
    ]),
  );
  // Only the fields the monitor reads.
  return { revision, endpoints, models, unservable: new Map() } as unknown as EndpointTable;
}

/** A client whose groups and ModelReady answers the test sets; counts the probes. */
function fakeClient(groups: Record<string, string[]>, ready: (address: string) => boolean) {
  const client = {
    probes: 0,
    addressesOf: (group: string) => groups[group] ?? [],
    modelReady: (address: string) => {
      client.probes += 1;
      return Promise.resolve(ready(address));
    },
  };
  return client;
}

function monitorWith(table: EndpointTable | undefined, client: ReturnType<typeof fakeClient>) {
  const tables: { current: EndpointTable | undefined } = { current: table };
  const clock = { nowMs: 0 };
  const monitor = new EndpointServabilityMonitor(
    tables as unknown as EndpointTables,
    client as unknown as InferenceClient,
    1000,
    () => clock.nowMs,
  );
  return { monitor, tables, clock };
}

describe('EndpointServabilityMonitor', () => {
  it('decides each endpoint from its workers’ ModelReady answers', async () => {
    const client = fakeClient({ default: ['w1', 'w2'] }, (address) => address === 'w2');
    const { monitor } = monitorWith(tableOf(1, { sentiment: 'default', orphan: 'nowhere' }), client);
    expect(Object.fromEntries(await monitor.fresh())).toEqual({
      sentiment: { ready: true },
      orphan: { ready: false, reason: "model orphan:1: worker group 'nowhere' has no workers" },
    });
  });

  it('reuses verdicts younger than maxAgeMs, and checks again after', async () => {
    const client = fakeClient({ default: ['w1'] }, () => true);
    const { monitor, clock } = monitorWith(tableOf(1, { sentiment: 'default' }), client);
    await monitor.fresh();
    clock.nowMs = 1000;
    await monitor.fresh();
    expect(client.probes).toBe(1);
    clock.nowMs = 1001;
    await monitor.fresh();
    expect(client.probes).toBe(2);
  });

  it('checks a new table at once, however young the verdicts of the old one', async () => {
    const client = fakeClient({ default: ['w1'] }, () => true);
    const { monitor, tables } = monitorWith(tableOf(1, { sentiment: 'default' }), client);
    await monitor.fresh();
    tables.current = tableOf(2, { sentiment: 'default', embed: 'default' });
    expect([...(await monitor.fresh()).keys()]).toEqual(['sentiment', 'embed']);
  });

  it('joins a check that is running rather than starting another', async () => {
    const client = fakeClient({ default: ['w1'] }, () => true);
    const { monitor } = monitorWith(tableOf(1, { sentiment: 'default' }), client);
    await Promise.all([monitor.fresh(), monitor.fresh(), monitor.fresh()]);
    expect(client.probes).toBe(1);
  });

  it('answers latest() at once, empty before the first check, and checks in the background', async () => {
    const client = fakeClient({ default: ['w1'] }, () => true);
    const { monitor } = monitorWith(tableOf(1, { sentiment: 'default' }), client);
    expect(monitor.latest().size).toBe(0);
    await monitor.fresh(); // joins the check latest() started
    expect(client.probes).toBe(1);
    expect(Object.fromEntries(monitor.latest())).toEqual({ sentiment: { ready: true } });
  });

  it('has no verdicts before the first table', async () => {
    const { monitor } = monitorWith(
      undefined,
      fakeClient({}, () => true),
    );
    expect((await monitor.fresh()).size).toBe(0);
  });
});
