import { type ApiErrorBody, type ModelView, parseConfigSnapshot } from '@modelgate/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureRegistration, waitForPrepared, type RunningRegistry } from '@modelgate/testing';
import { type Isolation, isolate, startRegistryInProcess } from './support/registry-harness.js';

interface EndpointBody {
  name: string;
  routes: { model: string; weight: number; role: string }[];
  preprocessing: Record<string, unknown>;
  timeoutMs: number | null;
}

describe('registry admin API', () => {
  let isolation: Isolation;
  let registry: RunningRegistry;
  let sst2: Record<string, unknown>;
  let embedder: Record<string, unknown>;

  const revision = async (): Promise<number> =>
    (await registry.admin.get<{ revision: number }>('/v1/config/snapshot')).body.revision;

  beforeAll(async () => {
    isolation = await isolate();
    registry = await startRegistryInProcess(isolation.env);
    sst2 = await fixtureRegistration(
      'tiny-bert-sst2',
      'sst2',
      'text-classification',
      `${isolation.dir}/files`,
    );
    embedder = await fixtureRegistration(
      'tiny-bert-embedder',
      'embedder',
      'feature-extraction',
      `${isolation.dir}/files`,
    );
  });

  afterAll(async () => {
    await registry?.stop();
    await isolation?.dispose();
  });

  describe('models', () => {
    it('names every bad field of a registration', async () => {
      const response = await registry.admin.post<ApiErrorBody & { error: { issues: { path: string }[] } }>(
        '/v1/models',
        { name: 'Bad_Name', task: 'translation', artifact: { uri: 'ftp://x', sha256: 'abc' }, version: '01' },
      );
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('INVALID_ARGUMENT');
      expect(response.body.error.issues.map((issue) => issue.path).sort()).toEqual([
        'artifact.sha256',
        'artifact.uri',
        'name',
        'task',
        'version',
      ]);
      expect(response.body.error.message).toContain('name: must be 1-63 lowercase letters');
    });

    it('answers 415 for a non-JSON body and 400 for broken JSON', async () => {
      const text = await registry.admin.request<ApiErrorBody>('POST', '/v1/models', 'hello', {
        'content-type': 'text/plain',
      });
      expect(text.status).toBe(415);
      expect(text.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      const broken = await registry.admin.request<ApiErrorBody>('POST', '/v1/models', '{"name":');
      expect(broken.status).toBe(400);
    });

    it('registers a model as PENDING (202), prepares it to READY and numbers versions per name', async () => {
      const before = await revision();
      const first = await registry.admin.post<ModelView>('/v1/models', sst2);
      expect(first.status).toBe(202);
      expect(first.body).toMatchObject({ id: 'sst2:1', version: '1', status: 'PENDING' });
      const second = await registry.admin.post<ModelView>('/v1/models', sst2);
      expect(second.body.id).toBe('sst2:2');
      const ready = await waitForPrepared(registry.admin, 'sst2:1');
      expect(ready).toMatchObject({ status: 'READY', statusReason: null, labels: ['NEGATIVE', 'POSITIVE'] });
      expect(ready.outputs).toEqual([{ name: 'logits', datatype: 'FP32', dims: [-1, 2] }]);
      expect(ready.inputs.map((input) => input.name)).toEqual([
        'input_ids',
        'attention_mask',
        'token_type_ids',
      ]);
      expect(ready.timings).toMatchObject({ totalMs: expect.any(Number) as number });
      expect((await waitForPrepared(registry.admin, 'sst2:2')).status).toBe('READY');
      // register ×2 and READY ×2, each its own revision
      expect(await revision()).toBe(before + 4);

      const duplicate = await registry.admin.post<ApiErrorBody>('/v1/models', { ...sst2, version: 2 });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body.error.message).toBe('model sst2:2 already exists');
      const listed = await registry.admin.get<ModelView[]>('/v1/models?name=sst2');
      expect(listed.body.map((model) => model.id)).toEqual(['sst2:1', 'sst2:2']);
      // HEAD takes its GET route's query (it answered 400, "takes no query parameters").
      expect((await registry.admin.request('HEAD', '/v1/models?name=sst2')).status).toBe(200);
      const unknownFilter = await registry.admin.get<ApiErrorBody>('/v1/models?task=raw');
      expect(unknownFilter.status).toBe(400);
      expect(unknownFilter.body.error.message).toMatch(/task/);
      // A route that reads no query refuses one rather than answer as if it were not there.
      const ignored = await registry.admin.get<ApiErrorBody>('/v1/endpoints?name=sentiment');
      expect(ignored.status).toBe(400);
      expect(ignored.body.error).toMatchObject({
        code: 'INVALID_ARGUMENT',
        field: 'name',
        message: "GET /v1/endpoints takes no query parameters; leave out 'name'",
      });
      expect((await registry.admin.get('/v1/models/sst2/1?verbose=1')).status).toBe(400);
      expect((await registry.admin.get('/v1/models/sst2/9')).status).toBe(404);
      expect((await registry.admin.post<ModelView>('/v1/models', embedder)).status).toBe(202);
      expect((await waitForPrepared(registry.admin, 'embedder:1')).status).toBe('READY');
    });
  });

  describe('endpoints and routes', () => {
    it('refuses endpoints on models that are not READY or do another task, saying why', async () => {
      const tampered = await registry.admin.post<ModelView>('/v1/models', {
        ...sst2,
        name: 'tampered',
        artifact: { ...(sst2.artifact as object), sha256: 'f'.repeat(64) },
      });
      expect((await waitForPrepared(registry.admin, tampered.body.id)).status).toBe('FAILED');
      const notReady = await registry.admin.post<ApiErrorBody>('/v1/endpoints', {
        name: 'broken',
        task: 'text-classification',
        model: 'tampered:1',
      });
      expect(notReady.status).toBe(409);
      expect(notReady.body.error.message).toMatch(
        /^model: model tampered:1 is FAILED \(artifact: sha256 mismatch.*only READY models can be routed$/,
      );
      const wrongTask = await registry.admin.post<ApiErrorBody>('/v1/endpoints', {
        name: 'embed',
        task: 'feature-extraction',
        model: 'sst2:1',
      });
      expect(wrongTask.status).toBe(400);
      expect(wrongTask.body.error.message).toBe(
        'model: model sst2:1 does text-classification, which a feature-extraction endpoint cannot serve',
      );
      const unknown = await registry.admin.post<ApiErrorBody>('/v1/endpoints', {
        name: 'ghost',
        task: 'raw',
        model: 'nothing:1',
      });
      expect(unknown.status).toBe(404);
    });

    it('creates, shows, updates and lists an endpoint, each change a new revision', async () => {
      const start = await revision();
      const created = await registry.admin.post<EndpointBody>('/v1/endpoints', {
        name: 'sentiment',
        task: 'text-classification',
        model: 'sst2:1',
        postprocessing: { topK: 1 },
      });
      expect(created.status).toBe(201);
      expect(created.body.routes).toEqual([{ model: 'sst2:1', weight: 100, role: 'primary' }]);
      expect(await revision()).toBe(start + 1);
      expect(
        (await registry.admin.post('/v1/endpoints', { name: 'sentiment', task: 'raw', model: 'sst2:1' }))
          .status,
      ).toBe(409);

      const patched = await registry.admin.patch<EndpointBody>('/v1/endpoints/sentiment', {
        preprocessing: { maxTokens: 128 },
        timeoutMs: 2000,
      });
      expect(patched.status).toBe(200);
      expect(patched.body.preprocessing).toMatchObject({ maxTokens: 128, maxInputChars: 20000 });
      expect(patched.body.timeoutMs).toBe(2000);
      expect(await revision()).toBe(start + 2);
      const badOption = await registry.admin.patch<ApiErrorBody>('/v1/endpoints/sentiment', {
        postprocessing: { pooling: 'mean' },
      });
      expect(badOption.status).toBe(400);
      expect(badOption.body.error.field).toBe('postprocessing.pooling');
      expect((await registry.admin.get<EndpointBody>('/v1/endpoints/sentiment')).body.timeoutMs).toBe(2000);
      expect((await registry.admin.get<EndpointBody[]>('/v1/endpoints')).body.map((e) => e.name)).toEqual([
        'sentiment',
      ]);
      expect(await revision()).toBe(start + 2);
    });

    it('sets a 90/10 canary and refuses splits that are not 100 or route to unready models', async () => {
      const split = await registry.admin.put<EndpointBody>('/v1/endpoints/sentiment/routes', {
        routes: [
          { model: 'sst2:1', weight: 90 },
          { model: 'sst2:2', weight: 10 },
        ],
      });
      expect(split.status).toBe(200);
      expect(split.body.routes).toEqual([
        { model: 'sst2:1', weight: 90, role: 'primary' },
        { model: 'sst2:2', weight: 10, role: 'canary' },
      ]);
      const notHundred = await registry.admin.put<ApiErrorBody>('/v1/endpoints/sentiment/routes', {
        routes: [
          { model: 'sst2:1', weight: 80 },
          { model: 'sst2:2', weight: 10 },
        ],
      });
      expect(notHundred.status).toBe(400);
      expect(notHundred.body.error.message).toContain('must sum to 100, got 90');
      const unready = await registry.admin.put<ApiErrorBody>('/v1/endpoints/sentiment/routes', {
        routes: [
          { model: 'sst2:1', weight: 50 },
          { model: 'tampered:1', weight: 50 },
        ],
      });
      expect(unready.status).toBe(409);
      expect(unready.body.error.field).toBe('routes[1].model');
      expect((await registry.admin.get<EndpointBody>('/v1/endpoints/sentiment')).body.routes).toHaveLength(2);
    });

    it('refuses to delete a routed model (409) and deletes it once unrouted', async () => {
      const routed = await registry.admin.delete<ApiErrorBody>('/v1/models/sst2/2');
      expect(routed.status).toBe(409);
      expect(routed.body.error.message).toContain('routed by endpoint(s) sentiment');
      await registry.admin.put('/v1/endpoints/sentiment/routes', {
        routes: [{ model: 'sst2:1', weight: 100 }],
      });
      expect((await registry.admin.delete('/v1/models/sst2/2')).status).toBe(204);
      expect((await registry.admin.get('/v1/models/sst2/2')).status).toBe(404);
    });
  });

  describe('config snapshot', () => {
    it('validates, carries READY models and routes, and answers 304 for the current revision', async () => {
      const response = await registry.admin.get<unknown>('/v1/config/snapshot');
      expect(response.status).toBe(200);
      const snapshot = parseConfigSnapshot(response.body);
      expect(response.headers.get('etag')).toBe(`"${snapshot.revision}"`);
      expect(snapshot.models.map((model) => model.id)).toEqual(['embedder:1', 'sst2:1']);
      expect(snapshot.endpoints).toEqual([
        expect.objectContaining({
          name: 'sentiment',
          routes: [{ model: 'sst2:1', weight: 100, role: 'primary' }],
        }),
      ]);
      const notModified = await registry.admin.get('/v1/config/snapshot', {
        'if-none-match': `"${snapshot.revision}"`,
      });
      expect(notModified.status).toBe(304);
      expect(notModified.body).toBe('');
      const stale = await registry.admin.get('/v1/config/snapshot', {
        'if-none-match': `"${snapshot.revision - 1}"`,
      });
      expect(stale.status).toBe(200);

      // A body the route does not read is refused, and nothing is deleted.
      const withBody = await registry.admin.request<ApiErrorBody>('DELETE', '/v1/endpoints/sentiment', {
        force: true,
      });
      expect(withBody.status).toBe(400);
      expect(withBody.body.error.message).toBe(
        'DELETE /v1/endpoints/:name takes no body; send the request without one',
      );
      expect((await registry.admin.get('/v1/endpoints/sentiment')).status).toBe(200);
      expect((await registry.admin.delete('/v1/endpoints/sentiment')).status).toBe(204);
      const after = parseConfigSnapshot((await registry.admin.get('/v1/config/snapshot')).body);
      expect(after.revision).toBe(snapshot.revision + 1);
      expect(after.endpoints).toEqual([]);
    });

    it('wrote an audit row per mutation, naming the token and the request', async () => {
      const rows = await isolation.sql<{
        actor: string;
        action: string;
        target: string;
        details: { requestId?: string };
      }>('SELECT actor, action, target, details FROM audit_log ORDER BY id');
      const actions = rows.map((row) => `${row.actor} ${row.action} ${row.target}`);
      expect(actions).toEqual(
        expect.arrayContaining([
          'token:bootstrap model.register model:sst2:1',
          'system:model-preparation model.ready model:sst2:1',
          'system:model-preparation model.failed model:tampered:1',
          'token:bootstrap endpoint.create endpoint:sentiment',
          'token:bootstrap endpoint.update endpoint:sentiment',
          'token:bootstrap endpoint.routes.set endpoint:sentiment',
          'token:bootstrap model.delete model:sst2:2',
          'token:bootstrap endpoint.delete endpoint:sentiment',
        ]),
      );
      expect(rows.find((row) => row.action === 'endpoint.create')?.details.requestId).toMatch(
        /^[0-9a-f-]{36}$/,
      );
      const [events] = await isolation.sql<{ unpublished: string }>(
        'SELECT count(*) FILTER (WHERE published_at IS NULL) AS unpublished FROM config_events',
      );
      expect(events?.unpublished).toBe('0');
    });
  });
});
