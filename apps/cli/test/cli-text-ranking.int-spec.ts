// `modelgate model add --task text-ranking` against a running registry: a cross-encoder (one logit
// per pair) is prepared READY; a two-label classifier registered as text-ranking FAILS, saying why.
import { type ModelView } from '@modelgate/contracts';
import { ensureFixture } from '@modelgate/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRegistry, startCliRegistry } from './support/cli-registry.js';

describe('modelgate CLI: text-ranking models', () => {
  let cli: CliRegistry;

  const modelgate = (...args: string[]) => cli.modelgate(...args);

  beforeAll(async () => {
    cli = await startCliRegistry();
  });

  afterAll(async () => {
    await cli?.stop();
  });

  it('prepares a cross-encoder READY, its logits [batch, 1] and no labels', async () => {
    const dir = await ensureFixture('tiny-bert-reranker');
    const run = await modelgate('model', 'add', 'rerank', '--path', dir, '--task', 'text-ranking', '--json');
    expect(run.code, run.stderr).toBe(0);
    const model = JSON.parse(run.stdout) as ModelView;
    expect(model).toMatchObject({ id: 'rerank:1', task: 'text-ranking', status: 'READY', labels: null });
    expect(model.outputs).toEqual([{ name: 'logits', datatype: 'FP32', dims: [-1, 1] }]);

    const endpoint = await modelgate('endpoint', 'add', 'rerank', '--model', 'rerank:1');
    expect(endpoint.code, endpoint.stderr).toBe(0);
    expect(endpoint.stdout).toMatch(/^task: +text-ranking$/m);
  });

  it('fails a two-label classifier registered as text-ranking, with a reason a person can act on', async () => {
    const dir = await ensureFixture('tiny-bert-sst2');
    const run = await modelgate('model', 'add', 'sst2-as-ranker', '--path', dir, '--task', 'text-ranking');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "model sst2-as-ranker:1 FAILED: task text-ranking needs one relevance logit per pair, logits [batch, 1]; the model's logits has 2 columns",
    );
    expect(run.stderr).toContain('register it as text-classification');
  });
});
