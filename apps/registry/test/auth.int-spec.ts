import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiErrorBody } from '@modelgate/contracts';
import { type RunningRegistry, startRegistryProcess } from '@modelgate/testing';
import { type Isolation, isolate, startRegistryInProcess } from './support/registry-harness.js';

describe('registry auth', () => {
  let isolation: Isolation;
  let registry: RunningRegistry;
  /** Every route Fastify registered, as Nest registered it. */
  const routeTable: { method: string; url: string }[] = [];

  beforeAll(async () => {
    isolation = await isolate();
    registry = await startRegistryInProcess(isolation.env, (app) => {
      app
        .getHttpAdapter()
        .getInstance()
        .addHook('onRoute', (route) => {
          for (const method of [route.method].flat()) routeTable.push({ method, url: route.url });
        });
    });
  });

  afterAll(async () => {
    await registry?.stop();
    await isolation?.dispose();
  });

  it('answers 401 without a token or with an unknown one, and leaves probes and metrics open', async () => {
    const anonymous = registry.client();
    const missing = await anonymous.get<ApiErrorBody>('/v1/models');
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(missing.body.error.code).toBe('UNAUTHENTICATED');
    expect((await registry.client('mgt_not-a-token').get('/v1/models')).status).toBe(401);
    expect((await anonymous.get('/health/live')).status).toBe(200);
    expect((await anonymous.get('/health/ready')).status).toBe(200);
    const metrics = await anonymous.get<string>('/metrics');
    expect(metrics.body).toContain('modelgate_registry_config_revision');
    expect(metrics.body).toContain('modelgate_nodes{role="worker"');
  });

  it('echoes a safe x-request-id and makes one up otherwise', async () => {
    const echoed = await registry.admin.get('/v1/models', { 'x-request-id': 'trace-42' });
    expect(echoed.headers.get('x-request-id')).toBe('trace-42');
    const replaced = await registry.admin.get<ApiErrorBody>('/v1/models/x/0', {
      'x-request-id': 'not an id <script>',
    });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(replaced.body.error.request_id).toBe(replaced.headers.get('x-request-id'));
  });

  it('gives a viewer every read and a 403 on every mutating route in the route table', async () => {
    const created = await registry.admin.post<{ token: string; role: string }>('/v1/tokens', {
      name: 'dashboard',
      role: 'viewer',
    });
    expect(created.status).toBe(201);
    expect(created.body.token).toMatch(/^mgt_/);
    const viewer = registry.client(created.body.token);
    expect((await viewer.get('/v1/models')).status).toBe(200);
    expect((await viewer.get('/v1/config/snapshot')).status).toBe(200);

    // Node reports are the one write a viewer token may make: nodes hold a viewer token, and a
    // report changes what GET /v1/status lists, nothing that routes traffic.
    const nodeReports = new Set(['POST /v1/nodes/heartbeat', 'DELETE /v1/nodes/:role/:id']);
    const mutating = routeTable.filter(
      (route) =>
        ['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method) &&
        !nodeReports.has(`${route.method} ${route.url}`),
    );
    expect(mutating.length).toBeGreaterThanOrEqual(9);
    const report = { role: 'worker', id: 'viewer-node', address: '127.0.0.1:1', revision: null, models: {} };
    expect((await viewer.post('/v1/nodes/heartbeat', { report, ttlMs: 5000 })).status).toBe(204);
    expect((await viewer.delete('/v1/nodes/worker/viewer-node')).status).toBe(204);
    for (const route of mutating) {
      const path = route.url.replace(/:name/g, 'x').replace(/:version/g, '1');
      const response = await viewer.request<ApiErrorBody>(route.method, path, {});
      expect({ route: `${route.method} ${route.url}`, status: response.status }).toEqual({
        route: `${route.method} ${route.url}`,
        status: 403,
      });
      expect(response.body.error.message).toContain("token 'dashboard' has role viewer");
    }
  });

  it('lists tokens without secrets, refuses to revoke the last admin, and a revoked token stops working', async () => {
    const ci = await registry.admin.post<{ token: string }>('/v1/tokens', { name: 'ci', role: 'admin' });
    const listed = await registry.admin.get<Record<string, unknown>[]>('/v1/tokens');
    expect(listed.body.map((token) => token.name)).toEqual(['bootstrap', 'ci', 'dashboard']);
    expect(JSON.stringify(listed.body)).not.toContain(ci.body.token);
    expect(Object.keys(listed.body[0]!).sort()).toEqual(['createdAt', 'name', 'revokedAt', 'role']);

    const ciClient = registry.client(ci.body.token);
    expect((await ciClient.delete('/v1/tokens/ci')).status).toBe(200);
    expect((await ciClient.get('/v1/models')).status).toBe(401);
    const last = await registry.admin.delete<ApiErrorBody>('/v1/tokens/bootstrap');
    expect(last.status).toBe(409);
    expect(last.body.error.message).toContain('last active admin token');
    expect((await registry.admin.post('/v1/tokens', { name: 'ci', role: 'admin' })).status).toBe(409);
  });

  it('audits token changes, never the secrets', async () => {
    const rows = await isolation.sql<{ actor: string; action: string; target: string; details: unknown }>(
      'SELECT actor, action, target, details FROM audit_log ORDER BY id',
    );
    expect(rows.map((row) => `${row.actor} ${row.action} ${row.target}`)).toEqual([
      'system:bootstrap token.create token:bootstrap',
      'token:bootstrap token.create token:dashboard',
      'token:bootstrap token.create token:ci',
      'token:ci token.revoke token:ci',
    ]);
    expect(JSON.stringify(rows)).not.toContain('mgt_');
    const [stored] = await isolation.sql<{ token_sha256: string }>(
      "SELECT token_sha256 FROM api_tokens WHERE name = 'bootstrap'",
    );
    expect(stored?.token_sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps an admin when two admins revoke each other at once, and answers 409 to a name created twice at once', async () => {
    const ops = await registry.admin.post<{ token: string }>('/v1/tokens', { name: 'ops', role: 'admin' });
    const opsClient = registry.client(ops.body.token);
    const revokes = await Promise.all([
      registry.admin.delete<ApiErrorBody>('/v1/tokens/ops'),
      opsClient.delete<ApiErrorBody>('/v1/tokens/bootstrap'),
    ]);
    // Both went through before, and no admin token was left.
    expect(revokes.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const admins = await isolation.sql<{ name: string }>(
      "SELECT name FROM api_tokens WHERE role = 'admin' AND revoked_at IS NULL",
    );
    expect(admins).toHaveLength(1);
    const survivor = admins[0]!.name === 'bootstrap' ? registry.admin : opsClient;
    const creates = await Promise.all(
      [1, 2].map(() => survivor.post<ApiErrorBody>('/v1/tokens', { name: 'twin', role: 'viewer' })),
    );
    // The second used to be a 500 from the unique index.
    expect(creates.map((answer) => answer.status).sort()).toEqual([201, 409]);
    expect(creates.find((answer) => answer.status === 409)?.body.error.message).toBe(
      "a token named 'twin' already exists",
    );
  });

  it('generates the first admin token when none is configured, printing it once on stdout', async () => {
    const fresh = await isolate();
    const { REGISTRY_BOOTSTRAP_TOKEN: _configured, ...env } = fresh.env;
    try {
      const first = await startRegistryProcess(env);
      await first.stop();
      const token = /first start[\s\S]*?(mgt_[A-Za-z0-9_-]{43})/.exec(first.process.output())?.[1];
      expect(token).toBeDefined();
      const second = await startRegistryProcess(env);
      try {
        expect((await second.client(token).get('/v1/tokens')).status).toBe(200);
        expect(second.process.output()).not.toContain('mgt_');
      } finally {
        await second.stop();
      }
    } finally {
      await fresh.dispose();
    }
  });

  it('warns at start when REGISTRY_BOOTSTRAP_TOKEN is set for a bootstrap token that was revoked', async () => {
    const fresh = await isolate();
    try {
      const first = await startRegistryProcess(fresh.env);
      let ops: string | undefined;
      try {
        ops = (await first.admin.post<{ token: string }>('/v1/tokens', { name: 'ops', role: 'admin' })).body
          .token;
        expect((await first.client(ops).delete('/v1/tokens/bootstrap')).status).toBe(200);
      } finally {
        await first.stop();
      }
      expect(first.process.output()).not.toContain('REGISTRY_BOOTSTRAP_TOKEN is set');
      // A revoke sticks: the same value grants nothing after a restart, and the registry says so.
      const second = await startRegistryProcess({ ...fresh.env, REGISTRY_LOG_LEVEL: 'warn' });
      try {
        expect((await second.admin.get('/v1/tokens')).status).toBe(401);
        expect((await second.client(ops).get('/v1/tokens')).status).toBe(200);
        expect(second.process.output()).toContain(
          'REGISTRY_BOOTSTRAP_TOKEN is set, but the bootstrap token was revoked',
        );
      } finally {
        await second.stop();
      }
    } finally {
      await fresh.dispose();
    }
  });
});
