import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeartbeatReader, type NodeHeartbeat } from '@modelgate/config-sync';
import {
  type RunningGateway,
  type RunningWorker,
  freePort,
  metricValue,
  startGateway,
  startWorkerWithSnapshot,
  waitFor,
  writeSnapshot,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ORPHAN_REASON = "model orphan:1: worker group 'nowhere' has no workers";

interface ReadyBody {
  ready: boolean;
  reason: string;
  revision: number | null;
  endpoints: Record<string, { ready: boolean; reason?: string }>;
}

describe('gateway readiness: one endpoint bound to a worker group without workers', () => {
  const keyPrefix = `mg-readiness-${process.pid}-${Date.now()}`;
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let heartbeats: HeartbeatReader;

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-readiness-'));
    const port = await freePort();
    const snapshot = await writeSnapshot(
      dir,
      [
        { name: 'bert', fixture: 'tiny-bert-sst2' },
        { name: 'orphan', fixture: 'tiny-bert-sst2', workerGroup: 'nowhere' },
      ],
      {
        workerGroups: [{ name: 'default', addresses: [`127.0.0.1:${port}`] }],
        endpoints: [
          {
            name: 'sentiment',
            task: 'text-classification',
            routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
          },
          {
            name: 'orphan',
            task: 'text-classification',
            routes: [{ model: 'orphan:1', weight: 100, role: 'primary' }],
          },
        ],
      },
    );
    // The worker loads only its group's model; the 'nowhere' group has no worker at all.
    worker = await startWorkerWithSnapshot(snapshot, { WORKER_GRPC_PORT: String(port) });
    // Redis only for the heartbeat (the config comes from the file): it is what `modelgate status` shows.
    gateway = await startGateway(snapshot, { REDIS_URL, REDIS_KEY_PREFIX: keyPrefix });
    heartbeats = new HeartbeatReader(REDIS_URL, keyPrefix);
  });

  afterAll(async () => {
    heartbeats?.close();
    await gateway?.stop();
    await worker?.stop();
  });

  it('answers /health/ready 200 once the revision is applied, reporting which endpoint is not servable and why', async () => {
    const response = await fetch(`${gateway.url}/health/ready`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ready: true, reason: 'serving', revision: 1 });
    // The verdicts come along once the first check has run.
    let body: ReadyBody | undefined;
    await waitFor(async () => {
      body = (await (await fetch(`${gateway.url}/health/ready`)).json()) as ReadyBody;
      return Object.keys(body.endpoints).length === 2 && body.endpoints.sentiment?.ready === true;
    });
    expect(body?.ready).toBe(true);
    expect(body?.endpoints).toEqual({
      sentiment: { ready: true },
      orphan: { ready: false, reason: ORPHAN_REASON },
    });
  });

  it('exports modelgate_endpoint_ready: 1 for the servable endpoint, 0 for the other', async () => {
    const ready = (text: string, endpoint: string) =>
      metricValue(text, 'modelgate_endpoint_ready', { serving_endpoint: endpoint });
    let text = '';
    await waitFor(async () => {
      text = await (await fetch(`${gateway.url}/metrics`)).text();
      return ready(text, 'sentiment') === 1;
    });
    expect(text).toMatch(/^modelgate_endpoint_ready\{[^}]*serving_endpoint="orphan"[^}]*\} 0$/m);
    expect(ready(text, 'sentiment')).toBe(1);
  });

  it('reports per-endpoint servability in its heartbeat, the node state `modelgate status` shows', async () => {
    let node: NodeHeartbeat | undefined;
    await waitFor(async () => {
      node = (await heartbeats.read()).find((beat) => beat.role === 'gateway');
      return node?.endpoints?.sentiment?.ready === true;
    });
    expect(node?.revision).toBe(1);
    expect(node?.endpoints).toEqual({
      sentiment: { ready: true },
      orphan: { ready: false, reason: ORPHAN_REASON },
    });
  });

  it('serves the servable endpoint while the other answers 503', async () => {
    expect((await gateway.post('/serve/sentiment', { text: 'fine' })).status).toBe(200);
    expect((await gateway.post('/serve/orphan', { text: 'fine' })).status).toBe(503);
    expect((await fetch(`${gateway.url}/health/ready`)).status).toBe(200);
  });
});
