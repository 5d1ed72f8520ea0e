// A route moved to a version the workers loaded a moment ago answers from its first request
// (issue 45, drill 4: the soak's version swaps answered 503 "no worker can serve model vit:N right
// now" until the gateway's next discovery read). The gateway reads heartbeats only at start and
// when a revision arrives here (discovery interval one hour), so only the read before a revision
// goes live can know the new version's workers.
import { join } from 'node:path';
import {
  type OwnRedis,
  type RunningGateway,
  type RunningRegistry,
  type RunningWorker,
  fixtureRegistration,
  startGateway,
  startOwnRedis,
  startRegistryProcess,
  startWorkerWithSnapshot,
  waitFor,
  waitForPrepared,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Isolation, isolate } from '../../apps/registry/test/support/registry-harness.js';
import { liveNodeSettings } from './support/live-stack.js';

describe('live sync: routing to a version just loaded', () => {
  let iso: Isolation;
  let redis: OwnRedis;
  let registry: RunningRegistry;
  let worker: RunningWorker | undefined;
  let gateway: RunningGateway | undefined;

  const register = async (version: string) => {
    const body = await fixtureRegistration(
      'tiny-bert-sst2',
      'tiny',
      'text-classification',
      join(iso.dir, 'files'),
    );
    await registry.admin.registerModel({ ...body, version });
    expect((await waitForPrepared(registry.admin, `tiny:${version}`)).status).toBe('READY');
  };
  /** Resolves once the registry's status shows the worker serving `model`. */
  const workerServes = (model: string) =>
    waitFor(
      async () =>
        (await registry.admin.status()).nodes.some(
          (node) => node.role === 'worker' && node.models[model] === 'READY',
        ),
      { timeoutMs: 60_000, describe: () => `the worker to announce ${model} READY` },
    );
  const gatewayRevision = async (url: string) =>
    ((await (await fetch(`${url}/health/ready`)).json()) as { revision: number | null }).revision ?? -1;

  beforeAll(async () => {
    redis = await startOwnRedis();
    iso = await isolate();
    registry = await startRegistryProcess({ ...iso.env, REDIS_URL: redis.url });
    await register('1');
    await registry.admin.createEndpoint({ name: 'swap', task: 'text-classification', model: 'tiny:1' });
    const { unusedSnapshot, env, roots } = await liveNodeSettings(registry, iso, redis.url);
    worker = await startWorkerWithSnapshot(unusedSnapshot, { ...env, WORKER_ARTIFACT_ROOTS: roots });
    await workerServes('tiny:1');
    gateway = await startGateway(unusedSnapshot, {
      ...env,
      GATEWAY_ARTIFACT_ROOTS: roots,
      GATEWAY_DISCOVERY_INTERVAL_MS: '3600000',
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
    await registry?.stop();
    await redis?.kill();
    await iso?.dispose().catch(() => undefined);
  });

  it('serves the new version from the first request after the gateway applied the route', async () => {
    expect((await gateway!.post('/serve/swap', { text: 'before' })).status).toBe(200);
    await register('2');
    await workerServes('tiny:2');
    const answer = await registry.admin.put('/v1/endpoints/swap/routes', {
      routes: [{ model: 'tiny:2', weight: 100, role: 'primary' }],
    });
    expect(answer.status).toBe(200);
    const revision = (await registry.admin.configSnapshot()).revision;
    await waitFor(async () => (await gatewayRevision(gateway!.url)) >= revision, { timeoutMs: 30_000 });
    const served = await gateway!.post('/serve/swap', { text: 'after' });
    expect(served.status).toBe(200);
    expect(served.body).toMatchObject({ endpoint: 'swap', model: 'tiny', version: '2' });
  });
});
