// Preparation of token-classification models through a real registry (Postgres, onnxruntime):
// a per-token head with id2label is READY with its labels; other heads, or no id2label, FAIL
// with a reason that says what the task needs.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packBundle } from '@modelgate/model-store';
import { ensureFixture } from '@modelgate/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fixtureRegistration,
  sha256,
  waitForPrepared,
  type RunningRegistry,
  withoutRedis,
} from '@modelgate/testing';
import { type Isolation, isolate, startRegistryInProcess } from './support/registry-harness.js';

describe('token-classification model preparation', () => {
  let isolation: Isolation;
  let registry: RunningRegistry;
  let files: string;

  beforeAll(async () => {
    isolation = await isolate();
    files = join(isolation.dir, 'files');
    registry = await startRegistryInProcess(withoutRedis(isolation.env));
  });

  afterAll(async () => {
    await registry?.stop();
    await isolation?.dispose();
  });

  const prepare = async (body: object, id: string) => {
    expect((await registry.admin.post('/v1/models', body)).status).toBe(202);
    return waitForPrepared(registry.admin, id);
  };

  it('prepares a per-token head READY with the labels of its config.json', async () => {
    const body = await fixtureRegistration('tiny-bert-ner', 'ner', 'token-classification', files);
    const ready = await prepare(body, 'ner:1');
    expect(ready.status).toBe('READY');
    expect(ready.labels).toEqual(['O', 'B-PER', 'I-PER', 'B-LOC', 'I-LOC', 'B-ORG', 'I-ORG']);
  });

  it('fails a sequence classifier registered as token-classification, naming what the task needs', async () => {
    const body = await fixtureRegistration('tiny-bert-sst2', 'sst2-as-ner', 'token-classification', files);
    const failed = await prepare(body, 'sst2-as-ner:1');
    expect(failed.status).toBe('FAILED');
    expect(failed.statusReason).toContain(
      'task token-classification needs logits to be FP32 [batch, sequence, labels]; the model declares logits (FP32 [',
    );
  });

  it('fails a token classifier whose config.json has no id2label', async () => {
    const dir = await ensureFixture('tiny-bert-ner');
    const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    delete config.id2label;
    delete config.label2id;
    const bundle = packBundle({
      'tokenizer.json': await readFile(join(dir, 'tokenizer.json')),
      'tokenizer_config.json': await readFile(join(dir, 'tokenizer_config.json')),
      'config.json': new TextEncoder().encode(JSON.stringify(config)),
    });
    const bundlePath = join(files, 'ner-no-labels.tar');
    await writeFile(bundlePath, bundle);
    const body = {
      ...(await fixtureRegistration('tiny-bert-ner', 'ner-no-labels', 'token-classification', files)),
      tokenizer: { uri: pathToFileURL(bundlePath).href, sha256: sha256(bundle) },
    };
    const failed = await prepare(body, 'ner-no-labels:1');
    expect(failed.status).toBe('FAILED');
    expect(failed.statusReason).toContain('task token-classification needs label names');
  });
});
