import { type ApiErrorBody, type ModelView, parseConfigSnapshot } from '@modelgate/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureRegistration, waitForPrepared, type RunningRegistry } from '@modelgate/testing';
import { type Isolation, isolate, startRegistryInProcess } from './support/registry-harness.js';

interface PolicyBody {
  model: string;
  policy: { kind: string; count?: number; versions?: number[] };
  isDefault: boolean;
  loadedVersions: number[];
}

describe('version policies (admin API and snapshot)', () => {
  let isolation: Isolation;
  let registry: RunningRegistry;

  const snapshot = async () => parseConfigSnapshot((await registry.admin.get('/v1/config/snapshot')).body);

  beforeAll(async () => {
    isolation = await isolate();
    registry = await startRegistryInProcess(isolation.env);
    const body = await fixtureRegistration(
      'tiny-bert-sst2',
      'demo',
      'text-classification',
      `${isolation.dir}/files`,
    );
    for (let version = 1; version <= 5; version++) {
      const registered = await registry.admin.post<ModelView>('/v1/models', body);
      expect(registered.status).toBe(202);
      expect((await waitForPrepared(registry.admin, registered.body.id)).status).toBe('READY');
    }
    const endpoint = await registry.admin.post('/v1/endpoints', {
      name: 'sentiment',
      task: 'text-classification',
      model: 'demo:1',
    });
    expect(endpoint.status).toBe(201);
  });

  afterAll(async () => {
    await registry?.stop();
    await isolation?.dispose();
  });

  it('defaults to latest 1: the routed version and the newest are loaded', async () => {
    const shown = await registry.admin.get<PolicyBody>('/v1/models/demo/version-policy');
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({
      model: 'demo',
      policy: { kind: 'latest', count: 1 },
      isDefault: true,
      loadedVersions: [1, 5],
    });
    expect((await snapshot()).versionPolicies).toEqual([]);
  });

  it('sets a policy as a config change the snapshot carries, and resets it', async () => {
    const before = (await snapshot()).revision;
    const all = await registry.admin.put<PolicyBody>('/v1/models/demo/version-policy', { kind: 'all' });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ isDefault: false, loadedVersions: [1, 2, 3, 4, 5] });
    const afterAll = await snapshot();
    expect(afterAll.revision).toBe(before + 1);
    expect(afterAll.versionPolicies).toEqual([{ model: 'demo', policy: { kind: 'all' } }]);

    const specific = await registry.admin.put<PolicyBody>('/v1/models/demo/version-policy', {
      kind: 'specific',
      versions: [3],
    });
    expect(specific.body.loadedVersions).toEqual([1, 3]);
    expect((await registry.admin.get<PolicyBody>('/v1/models/demo/version-policy')).body.policy).toEqual({
      kind: 'specific',
      versions: [3],
    });

    const reset = await registry.admin.delete<PolicyBody>('/v1/models/demo/version-policy');
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ isDefault: true, loadedVersions: [1, 5] });
    expect((await snapshot()).versionPolicies).toEqual([]);
  });

  it('refuses bad policies and unknown models with clear errors, changing nothing', async () => {
    const before = (await snapshot()).revision;
    const unknownVersion = await registry.admin.put<ApiErrorBody>('/v1/models/demo/version-policy', {
      kind: 'specific',
      versions: [2, 9],
    });
    expect(unknownVersion.status).toBe(400);
    expect(unknownVersion.body.error.message).toBe('model demo has no version 9 (it has 1, 2, 3, 4, 5)');
    const badKind = await registry.admin.put<ApiErrorBody>('/v1/models/demo/version-policy', {
      kind: 'newest',
    });
    expect(badKind.status).toBe(400);
    expect(badKind.body.error.code).toBe('INVALID_ARGUMENT');
    const zero = await registry.admin.put<ApiErrorBody>('/v1/models/demo/version-policy', {
      kind: 'latest',
      count: 0,
    });
    expect(zero.status).toBe(400);
    expect(zero.body.error.message).toContain('count');
    const unknownModel = await registry.admin.put<ApiErrorBody>('/v1/models/nope/version-policy', {
      kind: 'all',
    });
    expect(unknownModel.status).toBe(404);
    expect(unknownModel.body.error.message).toBe('model nope does not exist');
    expect((await registry.admin.get<ApiErrorBody>('/v1/models/Bad_Name/version-policy')).status).toBe(400);
    expect((await snapshot()).revision).toBe(before);
  });

  it('needs the admin role to change a policy', async () => {
    const token = await registry.admin.post<{ token: string }>('/v1/tokens', {
      name: 'reader',
      role: 'viewer',
    });
    const viewer = registry.client(token.body.token);
    expect((await viewer.get('/v1/models/demo/version-policy')).status).toBe(200);
    expect((await viewer.put('/v1/models/demo/version-policy', { kind: 'all' })).status).toBe(403);
  });

  it('forgets the policy with the last version of the model', async () => {
    const body = await fixtureRegistration(
      'tiny-bert-sst2',
      'solo',
      'text-classification',
      `${isolation.dir}/files`,
    );
    const registered = await registry.admin.post<ModelView>('/v1/models', body);
    await waitForPrepared(registry.admin, registered.body.id);
    await registry.admin.put('/v1/models/solo/version-policy', { kind: 'all' });
    expect((await registry.admin.delete('/v1/models/solo/1')).status).toBe(204);
    expect((await snapshot()).versionPolicies.map((entry) => entry.model)).toEqual([]);
    expect((await registry.admin.get('/v1/models/solo/version-policy')).status).toBe(404);
  });

  it('takes a deleted version out of a specific policy, and refuses to delete the only one it lists', async () => {
    const body = await fixtureRegistration(
      'tiny-bert-sst2',
      'pinned',
      'text-classification',
      `${isolation.dir}/files`,
    );
    for (let version = 1; version <= 3; version++) {
      const registered = await registry.admin.post<ModelView>('/v1/models', body);
      await waitForPrepared(registry.admin, registered.body.id);
    }
    expect(
      (await registry.admin.put('/v1/models/pinned/version-policy', { kind: 'specific', versions: [1, 2] }))
        .status,
    ).toBe(200);
    expect((await registry.admin.delete('/v1/models/pinned/2')).status).toBe(204);
    const policy = (await registry.admin.get<PolicyBody>('/v1/models/pinned/version-policy')).body;
    expect(policy.policy).toEqual({ kind: 'specific', versions: [1] });
    expect((await snapshot()).versionPolicies.find((entry) => entry.model === 'pinned')?.policy).toEqual({
      kind: 'specific',
      versions: [1],
    });
    // A version registered again under the freed number is not loaded by the old policy.
    const again = await registry.admin.post<ModelView>('/v1/models', { ...body, version: 2 });
    await waitForPrepared(registry.admin, again.body.id);
    expect(
      (await registry.admin.get<PolicyBody>('/v1/models/pinned/version-policy')).body.loadedVersions,
    ).toEqual([1]);
    const refused = await registry.admin.delete<ApiErrorBody>('/v1/models/pinned/1');
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toBe(
      "model pinned's version policy loads only version 1; set another one (modelgate model policy pinned ...) before deleting it",
    );
    expect((await registry.admin.get('/v1/models/pinned/1')).status).toBe(200);
  });
});
