// Preparation of text-generation models through a real registry (Postgres, Redis, BullMQ,
// onnxruntime): a GPT-2 export with past is READY, its generation_config.json bundled for the
// gateways; a decoder under an encoder task, or an encoder under text-generation, FAILS with a
// reason that names the right task or export; batching fields and endpoint options that
// generation would ignore are refused up front, and a maxBatchSize a decoder without position_ids
// could not honour at preparation.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ApiErrorBody, type EndpointView, type ModelView } from '@modelgate/contracts';
import { packBundle, unpackBundle } from '@modelgate/model-store';
import { ensureFixture } from '@modelgate/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureRegistration, sha256, waitForPrepared, type RunningRegistry } from '@modelgate/testing';
import { type Isolation, isolate, startRegistryInProcess } from './support/registry-harness.js';

const EXPORT_FILES = [
  'onnx/model.onnx',
  'tokenizer.json',
  'tokenizer_config.json',
  'config.json',
  'special_tokens_map.json',
  'generation_config.json',
];

describe('text-generation model preparation (BullMQ)', () => {
  let isolation: Isolation;
  let registry: RunningRegistry;
  let files: string;

  beforeAll(async () => {
    isolation = await isolate();
    files = join(isolation.dir, 'files');
    registry = await startRegistryInProcess(isolation.env);
  });

  afterAll(async () => {
    await registry?.stop();
    await isolation?.dispose();
  });

  const prepare = async (body: object, id: string): Promise<ModelView> => {
    const response = await registry.admin.post<ModelView>('/v1/models', body);
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    return waitForPrepared(registry.admin, id);
  };

  it('uploads a GPT-2 export with past and prepares it READY, generation_config.json in its tokenizer bundle', async () => {
    const dir = await ensureFixture('tiny-gpt2');
    const form = new FormData();
    form.set('name', 'gpt');
    form.set('task', 'text-generation');
    form.set('batching', JSON.stringify({ maxBatchSize: 4, maxQueueSize: 16, maxBatchTokens: 2048 }));
    for (const file of EXPORT_FILES) {
      const name = file.replace('onnx/', '');
      form.set(name, new Blob([await readFile(join(dir, file))]), name);
    }
    const response = await fetch(`${registry.url}/v1/models/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${registry.admin.token}` },
      body: form,
    });
    expect(response.status).toBe(202);
    const ready = await waitForPrepared(registry.admin, 'gpt:1');
    expect(ready.status, ready.statusReason ?? '').toBe('READY');
    expect(ready.batching).toMatchObject({ maxBatchSize: 4, maxQueueSize: 16, maxBatchTokens: 2048 });
    expect(ready.inputs.map((input) => input.name)).toEqual(
      expect.arrayContaining([
        'input_ids',
        'attention_mask',
        'past_key_values.0.key',
        'past_key_values.1.value',
      ]),
    );
    expect(ready.outputs.find((output) => output.name === 'logits')?.dims).toEqual([-1, -1, 50257]);
    expect(ready.timings?.warmUpMs).toBeGreaterThanOrEqual(0);

    const bundle = await fetch(ready.tokenizer!.uri, {
      headers: { authorization: `Bearer ${registry.admin.token}` },
    });
    const entries = unpackBundle(new Uint8Array(await bundle.arrayBuffer()));
    expect(Object.keys(entries).sort()).toEqual([
      'config.json',
      'generation_config.json',
      'special_tokens_map.json',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    expect(entries['generation_config.json']).toEqual(await readFile(join(dir, 'generation_config.json')));

    const snapshot = (
      await registry.admin.get<{ models: Array<ModelView & { generation?: unknown }> }>('/v1/config/snapshot')
    ).body;
    expect(snapshot.models.find((model) => model.id === 'gpt:1')).toMatchObject({
      task: 'text-generation',
      // What the worker checks requests against: config.json's n_positions, the logits' vocabulary.
      generation: { maxPositions: 256, vocabSize: 50257 },
    });
  });

  it("prepares a merged decoder (use_cache_branch and an If node, Optimum's decoder_model_merged) READY", async () => {
    const body = await fixtureRegistration('tiny-gpt2-merged', 'merged', 'text-generation', files);
    const ready = await prepare(body, 'merged:1');
    expect(ready.status, ready.statusReason ?? '').toBe('READY');
    expect(ready.inputs.find((input) => input.name === 'use_cache_branch')).toEqual({
      name: 'use_cache_branch',
      datatype: 'BOOL',
      dims: [1],
    });
    expect(ready.outputs.find((output) => output.name === 'logits')?.dims).toEqual([-1, -1, 50257]);
    expect(ready.timings?.warmUpMs).toBeGreaterThanOrEqual(0);
  });

  it('records the decoding defaults of generation_config.json that apply, and lists the fields it does not apply', async () => {
    const body = await fixtureRegistration('tiny-gpt2-chat', 'chat', 'text-generation', files);
    const ready = await prepare(body, 'chat:1');
    expect(ready.status, ready.statusReason ?? '').toBe('READY');
    expect(ready.generation).toEqual({
      maxPositions: 256,
      vocabSize: 50259,
      defaults: { max_new_tokens: 24, no_repeat_ngram_size: 3, repetition_penalty: 1.2 },
      unsupportedDefaults: ['typical_p=0.95'],
    });
  });

  it('prepares a decoder without position_ids READY at maxBatchSize 1 or left out, and fails it at another', async () => {
    const { batching: _eight, ...body } = await fixtureRegistration(
      'tiny-gpt2-no-positions',
      'implicit',
      'text-generation',
      files,
    );
    const byDefault = await prepare(body, 'implicit:1');
    // Left out, it stays out: the worker decodes such a graph one sequence at a time.
    expect(byDefault.batching.maxBatchSize).toBeUndefined();
    expect(byDefault.status, byDefault.statusReason ?? '').toBe('READY');
    expect(byDefault.inputs.map((input) => input.name)).not.toContain('position_ids');
    const one = await prepare({ ...body, batching: { maxBatchSize: 1 } }, 'implicit:2');
    expect(one.status, one.statusReason ?? '').toBe('READY');
    const four = await prepare({ ...body, batching: { maxBatchSize: 4 } }, 'implicit:3');
    expect(four.status).toBe('FAILED');
    expect(four.statusReason).toBe(
      'batching.maxBatchSize 4 cannot apply: the decoder takes no position_ids, so it numbers positions ' +
        'from its padded cache and decodes one sequence at a time; leave maxBatchSize out or set it to 1 ' +
        '(an export with position_ids, as optimum-cli writes for GPT-2 or Llama, decodes sequences together)',
    );
    // Given means given: 32 asked for is refused like 4, not taken as "as many as it can".
    const explicit = await prepare({ ...body, batching: { maxBatchSize: 32 } }, 'implicit:4');
    expect(explicit.status).toBe('FAILED');
    expect(explicit.statusReason).toMatch(
      /^batching\.maxBatchSize 32 cannot apply: the decoder takes no position_ids/,
    );
  });

  it('routes a text-generation endpoint to it, and refuses options generation would ignore', async () => {
    const created = await registry.admin.post('/v1/endpoints', {
      name: 'writer',
      task: 'text-generation',
      model: 'gpt:1',
      preprocessing: { maxInputChars: 2000, maxTokens: 128 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const batch = await registry.admin.post<ApiErrorBody>('/v1/endpoints', {
      name: 'batch',
      task: 'text-generation',
      model: 'gpt:1',
      preprocessing: { maxBatchItems: 8 },
    });
    expect(batch.status).toBe(400);
    expect(batch.body.error.field).toBe('preprocessing.maxBatchItems');
    const patched = await registry.admin.patch<ApiErrorBody>('/v1/endpoints/writer', {
      postprocessing: { topK: 2 },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.error.message).toContain(
      'applies to text-classification and image-classification endpoints only, not text-generation',
    );
    const wrongTask = await registry.admin.post<ApiErrorBody>('/v1/endpoints', {
      name: 'sentiment',
      task: 'text-classification',
      model: 'gpt:1',
    });
    expect(wrongTask.status).toBe(400);
    expect(wrongTask.body.error.message).toContain('does text-generation');
    // The gateway serves a raw endpoint with one ModelInfer call, which a decoder's worker refuses.
    const raw = await registry.admin.post<ApiErrorBody>('/v1/endpoints', {
      name: 'any',
      task: 'raw',
      model: 'gpt:1',
    });
    expect(raw.status).toBe(400);
    expect(raw.body.error.field).toBe('model');
    expect(raw.body.error.message).toContain('a raw endpoint cannot serve a text-generation model');
  });

  it("keeps an endpoint's own decoding defaults, merges and clears them key by key, and carries them in the snapshot", async () => {
    const created = await registry.admin.post<EndpointView>('/v1/endpoints', {
      name: 'teller',
      task: 'text-generation',
      model: 'gpt:1',
      generation: { max_new_tokens: 8, do_sample: true, temperature: 0.7 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.generation).toEqual({ max_new_tokens: 8, do_sample: true, temperature: 0.7 });
    const patched = await registry.admin.patch<EndpointView>('/v1/endpoints/teller', {
      generation: { temperature: null, top_k: 5 },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.generation).toEqual({ max_new_tokens: 8, do_sample: true, top_k: 5 });
    const snapshot = await registry.admin.configSnapshot();
    expect(snapshot.endpoints.find((endpoint) => endpoint.name === 'teller')?.generation).toEqual({
      max_new_tokens: 8,
      do_sample: true,
      top_k: 5,
    });
    for (const [generation, key] of [
      [{ typical_p: 0.9 }, 'typical_p'],
      [{ top_p: 2 }, 'top_p'],
    ] as const) {
      const refused = await registry.admin.patch<ApiErrorBody>('/v1/endpoints/teller', { generation });
      expect(refused.status).toBe(400);
      expect(refused.body.error.field).toMatch(/^generation(\.|$)/);
      expect(JSON.stringify(refused.body.error)).toContain(key);
    }
    expect((await registry.admin.delete('/v1/endpoints/teller')).status).toBe(204);
  });

  it('refuses batching fields that generation would ignore, naming each', async () => {
    const body = await fixtureRegistration('tiny-gpt2', 'gpt-batched', 'text-generation', files);
    const response = await registry.admin.post<ApiErrorBody>('/v1/models', {
      ...body,
      batching: { maxBatchSize: 4, maxQueueDelayMicros: 100, preferredBatchSizes: [2], maxPaddingRatio: 2 },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.issues?.map((issue) => issue.path)).toEqual([
      'batching.maxQueueDelayMicros',
      'batching.preferredBatchSizes',
      'batching.maxPaddingRatio',
    ]);
    expect(response.body.error.issues?.[0]?.message).toContain('has no meaning for a text-generation model');
  });

  it('fails the decoder registered as text-classification, suggesting text-generation', async () => {
    const body = await fixtureRegistration('tiny-gpt2', 'gpt-as-sst2', 'text-classification', files);
    const failed = await prepare(body, 'gpt-as-sst2:1');
    expect(failed.status).toBe('FAILED');
    expect(failed.statusReason).toBe(
      'task text-classification cannot serve a decoder export with a KV cache (past_key_values.N inputs, ' +
        'present.N outputs): register it as text-generation',
    );
  });

  it('prepares the decoder READY as raw too, its warm-up run with an empty cache', async () => {
    const body = await fixtureRegistration('tiny-gpt2', 'gpt-raw', 'raw', files);
    const ready = await prepare(body, 'gpt-raw:1');
    expect(ready.status, ready.statusReason ?? '').toBe('READY');
    expect(ready.timings?.warmUpMs).toBeGreaterThanOrEqual(0);
  });

  it('fails a BERT classifier registered as text-generation, saying what export it needs', async () => {
    const body = await fixtureRegistration('tiny-bert-sst2', 'sst2-as-gpt', 'text-generation', files);
    const failed = await prepare(body, 'sst2-as-gpt:1');
    expect(failed.status).toBe('FAILED');
    expect(failed.statusReason).toMatch(
      /^a text-generation model needs past_key_values inputs \(an export with past: optimum-cli export onnx --task text-generation-with-past.*\); the model has inputs input_ids \(INT64/,
    );
  });

  it('fails the decoder when its tokenizer bundle has no tokenizer.json, one of another model, or no positions', async () => {
    const dir = await ensureFixture('tiny-gpt2');
    const bundleOf = async (name: string, entries: Record<string, Uint8Array>) => {
      const bytes = packBundle(entries);
      const path = join(files, `${name}.tar`);
      await writeFile(path, bytes);
      return { uri: pathToFileURL(path).href, sha256: sha256(bytes) };
    };
    const config = await readFile(join(dir, 'config.json'));
    const noTokenizer = await prepare(
      {
        ...(await fixtureRegistration('tiny-gpt2', 'gpt-no-tokenizer', 'text-generation', files)),
        tokenizer: await bundleOf('gpt-no-tokenizer', { 'config.json': config }),
      },
      'gpt-no-tokenizer:1',
    );
    expect(noTokenizer.status).toBe('FAILED');
    expect(noTokenizer.statusReason).toContain(
      'task text-generation needs tokenizer.json in the tokenizer bundle',
    );

    const small = JSON.parse(config.toString('utf8')) as Record<string, unknown>;
    small.vocab_size = 1000;
    const mismatched = await prepare(
      {
        ...(await fixtureRegistration('tiny-gpt2', 'gpt-other-config', 'text-generation', files)),
        tokenizer: await bundleOf('gpt-other-config', {
          'tokenizer.json': await readFile(join(dir, 'tokenizer.json')),
          'config.json': new TextEncoder().encode(JSON.stringify(small)),
        }),
      },
      'gpt-other-config:1',
    );
    expect(mismatched.status).toBe('FAILED');
    expect(mismatched.statusReason).toBe(
      "config.json says vocab_size 1000 but the model's logits score 50257 tokens",
    );

    const unbounded = JSON.parse(config.toString('utf8')) as Record<string, unknown>;
    delete unbounded.n_positions;
    delete unbounded.n_ctx;
    const noPositions = await prepare(
      {
        ...(await fixtureRegistration('tiny-gpt2', 'gpt-no-positions', 'text-generation', files)),
        tokenizer: await bundleOf('gpt-no-positions', {
          'tokenizer.json': await readFile(join(dir, 'tokenizer.json')),
          'config.json': new TextEncoder().encode(JSON.stringify(unbounded)),
        }),
      },
      'gpt-no-positions:1',
    );
    expect(noPositions.status).toBe('FAILED');
    expect(noPositions.statusReason).toBe(
      "task text-generation needs the model's positions in config.json (n_positions, max_position_embeddings, n_ctx: a positive integer), to refuse prompts that do not fit",
    );
  });
});
