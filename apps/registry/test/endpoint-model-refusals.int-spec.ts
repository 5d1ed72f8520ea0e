// Models an endpoint refuses wherever it meets them (create, update, routes, rollout):
// - beside postprocessing.pooling, a model whose embedding comes out pooled ([batch, hidden]), which
//   is answered as it is; tiny-bert-sst2 registered as feature-extraction stands in for a pooled
//   export (its only output, logits, is [batch, 2]);
// - any raw model: /serve answers tasks, and a raw model is called by tensors at /v2/models;
// - beside a raw endpoint's options, a model whose task would ignore them (a raw endpoint answers
//   as its model's task does);
// - beside preprocessing.maxTokens, a model whose tokenizer takes fewer tokens (the gateway cuts
//   inputs to the model's); `short` is tiny-bert-embedder with a tokenizer of 64 tokens.
import { type ApiErrorBody, type ModelView } from '@modelgate/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureRegistration, waitForPrepared, type RunningRegistry } from '@modelgate/testing';
import { type Isolation, isolate, startRegistryInProcess } from './support/registry-harness.js';

describe('models an endpoint refuses to route to', () => {
  let isolation: Isolation;
  let registry: RunningRegistry;

  beforeAll(async () => {
    isolation = await isolate();
    registry = await startRegistryInProcess(isolation.env);
    for (const [fixture, name] of [
      ['tiny-bert-embedder', 'hidden'],
      ['tiny-bert-sst2', 'pooled'],
    ] as const) {
      const body = await fixtureRegistration(fixture, name, 'feature-extraction', `${isolation.dir}/files`);
      for (let version = 1; version <= 2; version++) {
        const registered = await registry.admin.post<ModelView>('/v1/models', body);
        expect((await waitForPrepared(registry.admin, registered.body.id)).status).toBe('READY');
      }
    }
    const graph = await fixtureRegistration('tiny-bert-sst2', 'tensors', 'raw', `${isolation.dir}/files`);
    const raw = await registry.admin.post<ModelView>('/v1/models', graph);
    expect((await waitForPrepared(registry.admin, raw.body.id)).status).toBe('READY');
    // tiny-bert-embedder whose tokenizer_config.json says model_max_length 64.
    const short = await registry.admin.post<ModelView>(
      '/v1/models',
      await fixtureRegistration(
        'tiny-bert-embedder',
        'short',
        'feature-extraction',
        `${isolation.dir}/files`,
        {
          model_max_length: 64,
        },
      ),
    );
    expect((await waitForPrepared(registry.admin, short.body.id)).status).toBe('READY');
  });

  afterAll(async () => {
    await registry?.stop();
    await isolation?.dispose();
  });

  const refusal = (field: string, model: string) => ({
    code: 'INVALID_ARGUMENT',
    field,
    message: expect.stringMatching(
      new RegExp(
        `^${field.replace(/[.[\]]/g, '\\$&')}: model ${model} gives a pooled embedding \\(\\[batch, hidden\\]\\), answered as it is, so postprocessing.pooling 'mean' would never apply`,
      ),
    ) as unknown,
  });

  it('refuses pooling on an endpoint created for, patched over or routed to a pooled model', async () => {
    const admin = registry.admin;
    const create = (name: string, model: string, postprocessing: object) =>
      admin.post<ApiErrorBody>('/v1/endpoints', { name, task: 'feature-extraction', model, postprocessing });
    const created = await create('direct', 'pooled:1', { pooling: 'mean' });
    expect(created.status).toBe(400);
    expect(created.body.error).toMatchObject(refusal('postprocessing.pooling', 'pooled:1'));
    expect((await create('direct', 'pooled:1', { normalize: true })).status).toBe(201);
    const patched = await admin.patch<ApiErrorBody>('/v1/endpoints/direct', {
      postprocessing: { pooling: 'mean' },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.error).toMatchObject(refusal('postprocessing.pooling', 'pooled:1'));

    expect((await create('mean', 'hidden:1', { pooling: 'mean' })).status).toBe(201);
    const routed = await admin.put<ApiErrorBody>('/v1/endpoints/mean/routes', {
      routes: [
        { model: 'hidden:1', weight: 90 },
        { model: 'pooled:1', weight: 10 },
      ],
    });
    expect(routed.status).toBe(400);
    expect(routed.body.error).toMatchObject(refusal('routes[1].model', 'pooled:1'));
    const rollout = await admin.post<ApiErrorBody>('/v1/endpoints/mean/rollouts', { to: 'pooled:2' });
    expect(rollout.status).toBe(400);
    expect(rollout.body.error).toMatchObject(refusal('to', 'pooled:2'));
    // Between two models that pool nothing themselves, the endpoint's pooling applies.
    const split = await admin.put('/v1/endpoints/mean/routes', {
      routes: [
        { model: 'hidden:1', weight: 90 },
        { model: 'hidden:2', weight: 10 },
      ],
    });
    expect(split.status).toBe(200);
  });

  it('refuses a raw model on an endpoint created for it, routed to it or rolled out to it, naming where it is served', async () => {
    const admin = registry.admin;
    const rawRefusal = (field: string) => ({
      code: 'INVALID_ARGUMENT',
      field,
      message:
        `${field}: model tensors:1 does raw (tensors in, tensors out), which no endpoint serves: call it at ` +
        '/v2/models/tensors/versions/1/infer, or register it with the task it does',
    });
    const created = await admin.post<ApiErrorBody>('/v1/endpoints', {
      name: 'tensors',
      task: 'raw',
      model: 'tensors:1',
    });
    expect(created.status).toBe(400);
    expect(created.body.error).toMatchObject(rawRefusal('model'));
    expect((await admin.get('/v1/endpoints/tensors')).status).toBe(404);
    // A raw endpoint still serves a task model with that model's task.
    expect((await admin.post('/v1/endpoints', { name: 'any', task: 'raw', model: 'hidden:1' })).status).toBe(
      201,
    );
    const routed = await admin.put<ApiErrorBody>('/v1/endpoints/any/routes', {
      routes: [
        { model: 'hidden:1', weight: 90 },
        { model: 'tensors:1', weight: 10 },
      ],
    });
    expect(routed.status).toBe(400);
    expect(routed.body.error).toMatchObject(rawRefusal('routes[1].model'));
    const rollout = await admin.post<ApiErrorBody>('/v1/endpoints/any/rollouts', { to: 'tensors:1' });
    expect(rollout.status).toBe(400);
    expect(rollout.body.error).toMatchObject(rawRefusal('to'));
  });

  it("refuses the options of a raw endpoint that its model's task would ignore, wherever the two meet", async () => {
    const admin = registry.admin;
    const body = await fixtureRegistration(
      'tiny-bert-squad',
      'squad',
      'question-answering',
      `${isolation.dir}/files`,
    );
    const squad = await admin.post<ModelView>('/v1/models', body);
    expect((await waitForPrepared(admin, squad.body.id)).status).toBe('READY');
    const raw = (name: string, model: string, preprocessing: object) =>
      admin.post<ApiErrorBody>('/v1/endpoints', { name, task: 'raw', model, preprocessing });
    const because = (field: string) =>
      `(${field}: model squad:1 does question-answering, and a raw endpoint answers as its model's task does)`;

    // An embedder cuts long texts; a question-answering model windows them and cuts nothing.
    expect((await raw('rawcut', 'hidden:1', { truncation: false })).status).toBe(201);
    const routed = await admin.put<ApiErrorBody>('/v1/endpoints/rawcut/routes', {
      routes: [
        { model: 'hidden:1', weight: 90 },
        { model: 'squad:1', weight: 10 },
      ],
    });
    expect(routed.status).toBe(400);
    expect(routed.body.error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'preprocessing.truncation' });
    expect(routed.body.error.message).toMatch(
      /^preprocessing\.truncation: does not apply to question-answering endpoints/,
    );
    expect(routed.body.error.message).toContain(because('routes[1].model'));
    const rollout = await admin.post<ApiErrorBody>('/v1/endpoints/rawcut/rollouts', { to: 'squad:1' });
    expect(rollout.status).toBe(400);
    expect(rollout.body.error.message).toContain(because('to'));

    const long = await raw('rawlong', 'squad:1', { maxTokens: 500 });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatchObject({ field: 'preprocessing.maxTokens' });
    expect(long.body.error.message).toContain(because('model'));
    expect((await raw('rawqa', 'squad:1', { maxTokens: 256 })).status).toBe(201);
    const patched = await admin.patch<ApiErrorBody>('/v1/endpoints/rawqa', {
      preprocessing: { truncation: false },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.error.message).toContain(because('routes[0].model'));
    // Without options a task would ignore, a raw endpoint routes to both.
    const both = await admin.put('/v1/endpoints/rawqa/routes', {
      routes: [
        { model: 'squad:1', weight: 90 },
        { model: 'hidden:1', weight: 10 },
      ],
    });
    expect(both.status).toBe(200);
  });

  it('refuses a maxTokens above what the model takes, wherever the two meet', async () => {
    const admin = registry.admin;
    const tooMany = (field: string, model: string, maxTokens: number, takes: number) => ({
      code: 'INVALID_ARGUMENT',
      field,
      message: `${field}: preprocessing.maxTokens ${maxTokens} exceeds the ${takes} tokens model ${model} takes (its tokenizer's model_max_length and config.json's positions); set it to ${takes} or less, or leave it out for the model's maximum`,
    });
    const create = (name: string, model: string, maxTokens: number) =>
      admin.post<ApiErrorBody>('/v1/endpoints', {
        name,
        task: 'feature-extraction',
        model,
        preprocessing: { maxTokens },
      });
    const created = await create('wide', 'hidden:1', 100_000);
    expect(created.status).toBe(400);
    expect(created.body.error).toMatchObject(tooMany('model', 'hidden:1', 100_000, 512));
    expect((await create('wide', 'hidden:1', 512)).status).toBe(201);
    const patched = await admin.patch<ApiErrorBody>('/v1/endpoints/wide', {
      preprocessing: { maxTokens: 513 },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.error).toMatchObject(tooMany('routes[0].model', 'hidden:1', 513, 512));
    const routed = await admin.put<ApiErrorBody>('/v1/endpoints/wide/routes', {
      routes: [
        { model: 'hidden:1', weight: 90 },
        { model: 'short:1', weight: 10 },
      ],
    });
    expect(routed.status).toBe(400);
    expect(routed.body.error).toMatchObject(tooMany('routes[1].model', 'short:1', 512, 64));
    const rollout = await admin.post<ApiErrorBody>('/v1/endpoints/wide/rollouts', { to: 'short:1' });
    expect(rollout.status).toBe(400);
    expect(rollout.body.error).toMatchObject(tooMany('to', 'short:1', 512, 64));
    // Within what every model takes, both serve.
    expect((await admin.patch('/v1/endpoints/wide', { preprocessing: { maxTokens: 64 } })).status).toBe(200);
    const split = await admin.put('/v1/endpoints/wide/routes', {
      routes: [
        { model: 'hidden:1', weight: 90 },
        { model: 'short:1', weight: 10 },
      ],
    });
    expect(split.status).toBe(200);
  });
});
