// `modelgate model add --task image-classification` against a running registry: a ViT export
// (pixel_values in, logits out, no tokenizer.json) is uploaded with its config.json and
// preprocessor_config.json and prepared READY with the labels of its id2label; the same directory
// without preprocessor_config.json is refused naming the file; a text model registered as
// image-classification FAILS saying what the task needs.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ModelView } from '@modelgate/contracts';
import { ensureFixture } from '@modelgate/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRegistry, startCliRegistry } from './support/cli-registry.js';

describe('modelgate CLI: image-classification models', () => {
  let cli: CliRegistry;
  let dir: string;
  let scratch: string;

  const modelgate = (...args: string[]) => cli.modelgate(...args);

  beforeAll(async () => {
    cli = await startCliRegistry();
    dir = await ensureFixture('tiny-vit');
    scratch = await mkdtemp(join(tmpdir(), 'modelgate-cli-vit-'));
  });

  afterAll(async () => {
    await cli?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('lists image-classification among the tasks', async () => {
    const help = await modelgate('model', 'add', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('"image-classification"');
  });

  it('uploads a ViT export without tokenizer.json and prepares it READY with its labels and pixel_values input', async () => {
    const run = await modelgate(
      'model',
      'add',
      'vit',
      '--path',
      dir,
      '--task',
      'image-classification',
      '--json',
    );
    expect(run.code, run.stderr).toBe(0);
    const model = JSON.parse(run.stdout) as ModelView;
    expect(model).toMatchObject({
      id: 'vit:1',
      task: 'image-classification',
      status: 'READY',
      labels: ['tabby cat', 'golden retriever', 'goldfish', 'sports car', 'espresso'],
    });
    expect(model.inputs).toEqual([{ name: 'pixel_values', datatype: 'FP32', dims: [-1, 3, 224, 224] }]);
    expect(model.outputs).toEqual([{ name: 'logits', datatype: 'FP32', dims: [-1, 5] }]);

    const endpoint = await modelgate('endpoint', 'add', 'pets', '--model', 'vit:1');
    expect(endpoint.code, endpoint.stderr).toBe(0);
    expect(endpoint.stdout).toMatch(/^task: +image-classification$/m);
  });

  it('refuses the export without preprocessor_config.json, naming the file', async () => {
    const copy = join(scratch, 'no-preprocessor');
    await cp(join(dir, 'onnx'), join(copy, 'onnx'), { recursive: true });
    await cp(join(dir, 'config.json'), join(copy, 'config.json'));
    const run = await modelgate('model', 'add', 'vit-bare', '--path', copy, '--task', 'image-classification');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'preprocessor_config.json: the file is required for task image-classification',
    );
  });

  it('fails a text classifier registered as image-classification, saying what the task needs', async () => {
    const text = await ensureFixture('tiny-bert-sst2');
    const copy = join(scratch, 'bert-with-preprocessor');
    await cp(join(text, 'onnx'), join(copy, 'onnx'), { recursive: true });
    await cp(join(text, 'config.json'), join(copy, 'config.json'));
    await cp(join(dir, 'preprocessor_config.json'), join(copy, 'preprocessor_config.json'));
    const run = await modelgate(
      'model',
      'add',
      'bert-as-vit',
      '--path',
      copy,
      '--task',
      'image-classification',
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'model bert-as-vit:1 FAILED: task image-classification needs an input named pixel_values',
    );
  });
});
