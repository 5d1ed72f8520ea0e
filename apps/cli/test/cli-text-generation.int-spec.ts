// `modelgate model add --task text-generation` against a running registry: a GPT-2 export with
// past is uploaded (generation_config.json with the tokenizer files) and prepared READY, shown with
// its batching in generation words; the same export under an encoder task FAILS suggesting
// text-generation; an encoder batching option on a decoder is refused by the registry.
import { type ModelView } from '@modelgate/contracts';
import { ensureFixture } from '@modelgate/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRegistry, startCliRegistry } from './support/cli-registry.js';

describe('modelgate CLI: text-generation models', () => {
  let cli: CliRegistry;
  let dir: string;

  const modelgate = (...args: string[]) => cli.modelgate(...args);

  beforeAll(async () => {
    cli = await startCliRegistry();
    dir = await ensureFixture('tiny-gpt2');
  });

  afterAll(async () => {
    await cli?.stop();
  });

  it('lists text-generation among the tasks and explains the generation limits in its help', async () => {
    const help = await modelgate('model', 'add', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('"text-generation"');
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('text-generation: KV-cache budget in tokens');
  });

  it('uploads a decoder export, prepares it READY and shows slots, queue and KV-cache budget', async () => {
    const run = await modelgate(
      'model',
      'add',
      'gpt',
      '--path',
      dir,
      '--task',
      'text-generation',
      '--max-batch-size',
      '4',
      '--max-queue-size',
      '16',
      '--max-batch-tokens',
      '2048',
      '--json',
    );
    expect(run.code, run.stderr).toBe(0);
    const model = JSON.parse(run.stdout) as ModelView;
    expect(model).toMatchObject({ id: 'gpt:1', task: 'text-generation', status: 'READY' });
    expect(model.batching).toMatchObject({ maxBatchSize: 4, maxQueueSize: 16, maxBatchTokens: 2048 });

    const show = await modelgate('model', 'show', 'gpt:1');
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(
      /^batching: +4 sequences decoding together, 16 waiting, KV cache 2048 tokens, default timeout 10000ms$/m,
    );

    const endpoint = await modelgate('endpoint', 'add', 'writer', '--model', 'gpt:1');
    expect(endpoint.code, endpoint.stderr).toBe(0);
    expect(endpoint.stdout).toMatch(/^task: +text-generation$/m);
  });

  it('fails the decoder registered as text-classification, suggesting text-generation', async () => {
    const run = await modelgate(
      'model',
      'add',
      'gpt-as-sst2',
      '--path',
      dir,
      '--task',
      'text-classification',
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'model gpt-as-sst2:1 FAILED: task text-classification cannot serve a decoder export',
    );
    expect(run.stderr).toContain('register it as text-generation');
  });

  it('refuses a queue delay on a text-generation model, naming the field', async () => {
    const run = await modelgate(
      'model',
      'add',
      'gpt-delayed',
      '--path',
      dir,
      '--task',
      'text-generation',
      '--max-queue-delay-us',
      '500',
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--max-queue-delay-us has no meaning for a text-generation model');
  });
});
