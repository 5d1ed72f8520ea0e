import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type NodeReport, writeHeartbeat } from '@modelgate/config-sync';
import { type FleetStatusView, MODELGATE_VERSION, type TokenView } from '@modelgate/contracts';
import { freePort, startGateway, ADMIN_TOKEN, TEST_REDIS_URL } from '@modelgate/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runModelgate } from './support/cli-process.js';
import { type CliRegistry, startCliRegistry } from './support/cli-registry.js';

describe('modelgate CLI: tokens, fleet status and errors against a running registry', () => {
  let cli: CliRegistry;
  let redis: Redis;

  const modelgate = (token: string | undefined, ...args: string[]) => cli.modelgateAs(token, ...args);
  const admin = (...args: string[]) => cli.modelgate(...args);

  beforeAll(async () => {
    cli = await startCliRegistry();
    redis = new Redis(TEST_REDIS_URL);
  });

  afterAll(async () => {
    redis?.disconnect();
    await cli?.stop();
  });

  it('creates a viewer token that can list models but not remove one (403’s message)', async () => {
    const created = await admin('token', 'create', 'ci-viewer', '--role', 'viewer');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain("created viewer token 'ci-viewer'");
    const secret = created.stdout.trim();
    expect(secret).not.toContain('\n');
    expect(secret.length).toBeGreaterThanOrEqual(16);

    const list = await modelgate(secret, 'model', 'list', '--json');
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([]);

    const remove = await modelgate(secret, 'model', 'remove', 'tiny:1');
    expect(remove.code).toBe(1);
    expect(remove.stdout).toBe('');
    expect(remove.stderr).toContain(
      "error: token 'ci-viewer' has role viewer; this action needs an admin token",
    );
    expect(remove.stderr).toContain('PERMISSION_DENIED, HTTP 403');
  });

  it('lists tokens without secrets, and a revoked token stops working', async () => {
    const tokens = JSON.parse((await admin('token', 'list', '--json')).stdout) as TokenView[];
    expect(tokens.map((token) => `${token.name} ${token.role}`).sort()).toEqual([
      'bootstrap admin',
      'ci-viewer viewer',
    ]);
    const table = await admin('token', 'list');
    expect(table.stdout).toMatch(/^NAME +ROLE +CREATED +REVOKED$/m);

    const short = await admin('token', 'create', 'short-lived', '--role', 'admin', '--json');
    const { token } = JSON.parse(short.stdout) as { token: string };
    expect((await modelgate(token, 'model', 'list')).code).toBe(0);
    const revoked = await admin('token', 'revoke', 'short-lived');
    expect(revoked).toMatchObject({ code: 0, stdout: 'revoked token short-lived\n' });
    const refused = await modelgate(token, 'model', 'list');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error: invalid or revoked token');
  });

  it('says how to authenticate when no token is set', async () => {
    const run = await modelgate(undefined, 'model', 'list');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('(set MODELGATE_TOKEN)');
    expect(run.stderr).toContain('UNAUTHENTICATED, HTTP 401');
  });

  it('shows each node’s revision, lag and model states from its heartbeat', async () => {
    const latest = (await cli.registry.admin.get<{ revision: number }>('/v1/config/snapshot')).body.revision;
    const beat = (
      role: NodeReport['role'],
      id: string,
      body: Pick<NodeReport, 'address' | 'revision'> & Partial<NodeReport>,
    ): Promise<void> =>
      writeHeartbeat(redis, cli.isolation.keyPrefix, { role, id, models: {}, ...body }, 30_000);
    await beat('worker', 'worker-a', {
      address: '10.1.0.7:8001',
      workerGroup: 'default',
      revision: latest,
      models: { 'sst2:1': 'READY', 'sst2:2': 'LOADING' },
    });
    await beat('gateway', 'gateway-a', { address: '10.1.0.9:8080', revision: null });

    const status = JSON.parse((await modelgate(ADMIN_TOKEN, 'status', '--json')).stdout) as FleetStatusView;
    expect(status.revision).toBe(latest);
    expect(status.nodes.map((node) => [node.role, node.id, node.revision, node.lag])).toEqual([
      ['gateway', 'gateway-a', null, null],
      ['worker', 'worker-a', latest, 0],
    ]);

    const human = await admin('status');
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`latest revision ${latest}`);
    expect(human.stdout).toMatch(/^ROLE +ID +ADDRESS +GROUP +REVISION +LAG +SEEN +MODELS$/m);
    expect(human.stdout).toMatch(
      new RegExp(
        `^worker +worker-a +10\\.1\\.0\\.7:8001 +default +${latest} +0 +[\\d.]+s ago +sst2:1 READY, sst2:2 LOADING$`,
        'm',
      ),
    );
    expect(human.stdout).toMatch(/^gateway +gateway-a +10\.1\.0\.9:8080 +- +- +- +[\d.]+s ago +-$/m);
  });

  it('prints the CLI’s and the registry’s versions, with --version too', async () => {
    const run = await modelgate(undefined, 'version');
    expect(run).toMatchObject({
      code: 0,
      stdout: `modelgate CLI ${MODELGATE_VERSION}\nregistry ${MODELGATE_VERSION} (${cli.registry.url})\n`,
    });
    expect((await modelgate(undefined, '--version')).stdout).toBe(run.stdout);
    expect(JSON.parse((await modelgate(undefined, 'version', '-o', 'json')).stdout)).toEqual({
      cli: { version: MODELGATE_VERSION },
      registry: { url: cli.registry.url, version: MODELGATE_VERSION },
    });
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await runModelgate(['--version'], { registryUrl: nobody, token: undefined });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stdout).toBe(`modelgate CLI ${MODELGATE_VERSION}\n`);
    expect(unreachable.stderr).toContain(`registry version unknown: cannot reach the registry at ${nobody}`);
  });

  it('says so when pointed at a gateway instead of the registry', async () => {
    const snapshot = join(cli.isolation.dir, 'gateway-snapshot.json');
    await writeFile(snapshot, JSON.stringify({ revision: 1 }));
    const gateway = await startGateway(snapshot);
    try {
      const run = await runModelgate(['model', 'list'], { registryUrl: gateway.url, token: ADMIN_TOKEN });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        'this URL answers like a modelgate gateway; the admin API is served by the registry, port 8081 by default',
      );
    } finally {
      await gateway.stop();
    }
  });

  it('exits 1 naming the registry it cannot reach', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const run = await runModelgate(['model', 'list'], { registryUrl: nobody, token: ADMIN_TOKEN });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `error: cannot reach the registry at ${nobody}: ECONNREFUSED (set --registry or MODELGATE_REGISTRY)\n`,
    );
  });
});
