// `modelgate model add --task image-to-text` against a running registry: a vision-encoder-decoder
// export directory (onnx/encoder_model.onnx + onnx/decoder_model_merged.onnx) is uploaded whole and
// prepared READY, `model show` printing the encoder; the same graphs register by file:// URIs with
// --encoder-uri/--encoder-sha256; a directory without the encoder, or an encoder given to another
// task, is refused naming what is wrong.
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ModelView } from '@modelgate/contracts';
import { ensureFixture } from '@modelgate/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRegistry, startCliRegistry } from './support/cli-registry.js';

const sha256Of = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

describe('modelgate CLI: image-to-text models', () => {
  let cli: CliRegistry;
  let dir: string;
  let scratch: string;

  const modelgate = (...args: string[]) => cli.modelgate(...args);

  beforeAll(async () => {
    cli = await startCliRegistry();
    dir = await ensureFixture('tiny-vit-gpt2');
    scratch = await mkdtemp(join(tmpdir(), 'modelgate-cli-vit-gpt2-'));
  });

  afterAll(async () => {
    await cli?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('lists image-to-text among the tasks and offers --encoder-uri', async () => {
    const help = await modelgate('model', 'add', '--help');
    expect(help.code).toBe(0);
    const text = help.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('"image-to-text"');
    expect(text).toContain('--encoder-uri <uri>');
  });

  it('uploads the export directory, both graphs, and prepares it READY; model show prints the encoder', async () => {
    const run = await modelgate(
      'model',
      'add',
      'captioner',
      '--path',
      dir,
      '--task',
      'image-to-text',
      '--json',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/uploading encoder_model\.onnx, decoder_model_merged\.onnx, /);
    const model = JSON.parse(run.stdout) as ModelView;
    expect(model).toMatchObject({ id: 'captioner:1', task: 'image-to-text', status: 'READY' });
    expect(model.encoder?.sha256).toBe(await sha256Of(join(dir, 'onnx', 'encoder_model.onnx')));
    expect(model.artifact?.sha256).toBe(await sha256Of(join(dir, 'onnx', 'decoder_model_merged.onnx')));

    const show = await modelgate('model', 'show', 'captioner:1');
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(
      /^encoder: +http:\/\/\S+\/v1\/artifacts\/[0-9a-f]{64} \(sha256 [0-9a-f]{12}…\)$/m,
    );
    expect(show.stdout).toMatch(/^batching: +\d+ sequences decoding together/m);
  });

  it('registers the graphs by file:// URIs with --encoder-uri and --encoder-sha256, READY', async () => {
    const encoder = join(dir, 'onnx', 'encoder_model.onnx');
    const decoder = join(dir, 'onnx', 'decoder_model_merged.onnx');
    const bundle = JSON.parse(
      (await modelgate('model', 'show', 'captioner:1', '--json')).stdout,
    ) as ModelView;
    const run = await modelgate(
      'model',
      'add',
      'captioner-uri',
      '--task',
      'image-to-text',
      '--uri',
      pathToFileURL(decoder).href,
      '--sha256',
      await sha256Of(decoder),
      '--encoder-uri',
      pathToFileURL(encoder).href,
      '--encoder-sha256',
      await sha256Of(encoder),
      '--tokenizer-uri',
      bundle.tokenizer!.uri,
      '--tokenizer-sha256',
      bundle.tokenizer!.sha256,
      '--json',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      id: 'captioner-uri:1',
      status: 'READY',
      encoder: { uri: pathToFileURL(encoder).href },
    });
  });

  it('refuses a directory without the encoder, and an encoder for another task', async () => {
    const copy = join(scratch, 'decoder-only');
    await cp(dir, copy, { recursive: true });
    await rm(join(copy, 'onnx', 'encoder_model.onnx'));
    const bare = await modelgate('model', 'add', 'bare', '--path', copy, '--task', 'image-to-text');
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain(
      `--path ${copy}: no encoder_model.onnx in it or in its onnx/ folder (an image-to-text export has encoder_model.onnx and decoder_model_merged.onnx)`,
    );

    const wrong = await modelgate(
      'model',
      'add',
      'sst2',
      '--task',
      'text-classification',
      '--uri',
      'file:///m.onnx',
      '--sha256',
      'a'.repeat(64),
      '--encoder-uri',
      'file:///e.onnx',
      '--encoder-sha256',
      'b'.repeat(64),
    );
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(
      '--encoder-uri and --encoder-sha256 are for --task image-to-text only (the vision encoder), not text-classification',
    );
    const noEncoder = await modelgate(
      'model',
      'add',
      'cap',
      '--task',
      'image-to-text',
      '--uri',
      'file:///d.onnx',
      '--sha256',
      'a'.repeat(64),
    );
    expect(noEncoder.code).toBe(2);
    expect(noEncoder.stderr).toContain(
      '--task image-to-text needs --encoder-uri <uri> --encoder-sha256 <hex>',
    );
  });
});
