// Image models become servable from the preprocessor_config.json and config.json of their bundle;
// a config the gateway cannot honour leaves the model unservable, saying why.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfigSnapshot } from '@modelgate/contracts';
import { packBundle } from '@modelgate/model-store';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildEndpointTable } from './endpoint-table.js';
import { TokenizerLoader } from './tokenizer-loader.js';

const VIT_PREPROCESSOR = {
  image_processor_type: 'ViTImageProcessor',
  do_resize: true,
  size: { height: 224, width: 224 },
  resample: 2,
  do_rescale: true,
  rescale_factor: 1 / 255,
  do_normalize: true,
  image_mean: [0.5, 0.5, 0.5],
  image_std: [0.5, 0.5, 0.5],
};

/** Bundles by sha256, as a fake store serves them (the loader reads the file it is given). */
const bundles: Record<string, string> = {};
const store = {
  fetchArtifact: (ref: { sha256: string }) =>
    Promise.resolve({ path: bundles[ref.sha256] ?? '/missing', sha256: ref.sha256, bytes: 0, cached: true }),
};

function imageModel(name: string, sha256: string) {
  return {
    id: `${name}:1`,
    name,
    version: '1',
    task: 'image-classification',
    artifact: { uri: 'file:///m.onnx', sha256: 'a'.repeat(64) },
    tokenizer: { uri: `file:///${name}.tar`, sha256 },
    inputs: [{ name: 'pixel_values', datatype: 'FP32', dims: [-1, 3, 224, 224] }],
    outputs: [{ name: 'logits', datatype: 'FP32', dims: [-1, 2] }],
  };
}

describe('image-classification models in the endpoint table', () => {
  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'image-servable-'));
    const write = async (sha: string, files: Record<string, unknown>) => {
      const path = join(dir, `${sha.slice(0, 4)}.tar`);
      const text = Object.fromEntries(
        Object.entries(files).map(([name, json]) => [name, JSON.stringify(json)]),
      );
      await writeFile(path, packBundle(text));
      bundles[sha] = path;
    };
    await write('1'.repeat(64), {
      'preprocessor_config.json': VIT_PREPROCESSOR,
      'config.json': { id2label: { 0: 'cat', 1: 'dog' } },
    });
    await write('2'.repeat(64), {
      'preprocessor_config.json': { ...VIT_PREPROCESSOR, do_pad: true },
      'config.json': {},
    });
    await write('3'.repeat(64), { 'config.json': {} });
  });

  it("loads the processor and config.json's labels; refuses a bad or missing preprocessor_config.json with its reason", async () => {
    const snapshot = parseConfigSnapshot({
      revision: 1,
      models: [
        imageModel('good', '1'.repeat(64)),
        imageModel('padded', '2'.repeat(64)),
        imageModel('bare', '3'.repeat(64)),
      ],
      endpoints: [],
    });
    const table = await buildEndpointTable(snapshot, new TokenizerLoader(store));

    const good = table.models.get('good:1');
    expect(good?.labels).toEqual(['cat', 'dog']);
    expect(good?.tokenizer).toBeUndefined();
    expect(good?.inputNames).toEqual(['pixel_values']);
    expect(good?.image?.processorFor({ maxImageBytes: 1000, maxImagePixels: 1000 }).steps.resize).toEqual({
      target: { kind: 'exact', width: 224, height: 224 },
      resample: 'bilinear',
    });
    expect(table.unservable.get('padded:1')).toMatch(/preprocessor_config\.json.*do_pad/);
    expect(table.unservable.get('bare:1')).toContain('has no preprocessor_config.json');
  });
});
