// `modelgate model add --task question-answering` against a running registry: a span-head model
// (start_logits, end_logits) is prepared READY; a sentence classifier registered as
// question-answering FAILS, saying why.
import { type ModelView } from '@modelgate/contracts';
import { ensureFixture } from '@modelgate/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRegistry, startCliRegistry } from './support/cli-registry.js';

describe('modelgate CLI: question-answering models', () => {
  let cli: CliRegistry;

  const modelgate = (...args: string[]) => cli.modelgate(...args);

  beforeAll(async () => {
    cli = await startCliRegistry();
  });

  afterAll(async () => {
    await cli?.stop();
  });

  it('prepares a span-head model READY with start_logits and end_logits [batch, sequence]', async () => {
    const dir = await ensureFixture('tiny-bert-squad');
    const run = await modelgate(
      'model',
      'add',
      'squad',
      '--path',
      dir,
      '--task',
      'question-answering',
      '--json',
    );
    expect(run.code, run.stderr).toBe(0);
    const model = JSON.parse(run.stdout) as ModelView;
    expect(model).toMatchObject({ id: 'squad:1', task: 'question-answering', status: 'READY', labels: null });
    expect(model.outputs).toEqual([
      { name: 'start_logits', datatype: 'FP32', dims: [-1, -1] },
      { name: 'end_logits', datatype: 'FP32', dims: [-1, -1] },
    ]);

    const endpoint = await modelgate('endpoint', 'add', 'qa', '--model', 'squad:1');
    expect(endpoint.code, endpoint.stderr).toBe(0);
    expect(endpoint.stdout).toMatch(/^task: +question-answering$/m);
  });

  it('fails a sentence classifier registered as question-answering, with a reason a person can act on', async () => {
    const dir = await ensureFixture('tiny-bert-sst2');
    const run = await modelgate('model', 'add', 'sst2-as-qa', '--path', dir, '--task', 'question-answering');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'model sst2-as-qa:1 FAILED: task question-answering needs an FP32 output named start_logits [batch, sequence]',
    );
    expect(run.stderr).toContain('the model has outputs logits (FP32 [-1, 2])');
  });

  it('offers question-answering among the task choices', async () => {
    const run = await modelgate('model', 'add', 'x', '--path', '/nowhere', '--task', 'squad');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('question-answering');
  });
});
