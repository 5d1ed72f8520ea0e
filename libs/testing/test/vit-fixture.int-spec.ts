// The image-classification reference (DESIGN §8): transformers.js' pipeline on the tiny-vit
// fixture must equal our own onnxruntime run of its graph on the pixel values transformers.js'
// image processor produces, followed by a softmax over the labels.
import { dirname, join } from 'node:path';
import { AutoProcessor, RawImage, env, pipeline } from '@huggingface/transformers';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { MODEL_FILE, ensureFixture, getFixtureSpec, testCard } from '../src/index.js';
import { softmax } from './fixture-session.js';

env.allowRemoteModels = false;
env.allowLocalModels = true;

const NAME = 'tiny-vit';
const LABELS = (() => {
  const { head } = getFixtureSpec(NAME);
  if (head.kind !== 'image-classification') throw new Error(`${NAME} is not an image classifier`);
  return head.labels;
})();

/** The shared RGB test card (not 224×224, so the processor resizes) as transformers.js' RawImage. */
function testImage(width: number, height: number, seed: number): RawImage {
  return new RawImage(testCard(width, height, seed).data, width, height, 3);
}

let dir: string;
let session: ort.InferenceSession;
beforeAll(async () => {
  dir = await ensureFixture(NAME);
  env.localModelPath = dirname(dir);
  session = await ort.InferenceSession.create(join(dir, MODEL_FILE));
});

describe('tiny-vit', () => {
  it('has no tokenizer and a ViT preprocessor config beside its graph', async () => {
    const { readdir } = await import('node:fs/promises');
    const files = (await readdir(dir, { recursive: true })).filter((file) => !file.startsWith('.')).sort();
    expect(files).toEqual(['config.json', 'onnx', MODEL_FILE, 'preprocessor_config.json']);
  });

  it('answers transformers.js image-classification pipeline as its graph on the processor output, softmaxed', async () => {
    const classify = await pipeline('image-classification', NAME, { dtype: 'fp32', local_files_only: true });
    const processor = await AutoProcessor.from_pretrained(NAME, { local_files_only: true });
    const images = [testImage(300, 200, 3), testImage(64, 96, 11), testImage(224, 224, 29)];
    const tops = new Set<string>();
    for (const image of images) {
      const answer = (await classify(image, { top_k: LABELS.length })) as { label: string; score: number }[];
      const { pixel_values: pixels } = (await processor(image)) as {
        pixel_values: { data: Float32Array; dims: number[] };
      };
      expect(pixels.dims).toEqual([1, 3, 224, 224]);
      const result = await session.run({ pixel_values: new ort.Tensor('float32', pixels.data, pixels.dims) });
      const logits = result.logits?.data as Float32Array;
      const expected = softmax(logits)
        .map((score, id) => ({ label: LABELS[id] ?? '', score }))
        .sort((a, b) => b.score - a.score);
      expect(answer.map((entry) => entry.label)).toEqual(expected.map((entry) => entry.label));
      answer.forEach((entry, index) => expect(entry.score).toBeCloseTo(expected[index]?.score ?? NaN, 6));
      tops.add(answer[0]?.label ?? '');
    }
    // A random classifier whose answer did not depend on the image would be a useless fixture.
    expect(tops.size).toBeGreaterThan(1);
  });

  it('batches: rows of one [3, 3, 224, 224] run equal their single-row runs', async () => {
    const processor = await AutoProcessor.from_pretrained(NAME, { local_files_only: true });
    const rows: Float32Array[] = [];
    for (const seed of [1, 2, 3]) {
      const { pixel_values: pixels } = (await processor(testImage(128, 128, seed))) as {
        pixel_values: { data: Float32Array };
      };
      rows.push(pixels.data);
    }
    const batch = new Float32Array(rows.reduce((n, row) => n + row.length, 0));
    rows.forEach((row, index) => batch.set(row, index * row.length));
    const batched = (await session.run({ pixel_values: new ort.Tensor('float32', batch, [3, 3, 224, 224]) }))
      .logits?.data as Float32Array;
    for (const [index, row] of rows.entries()) {
      const single = (await session.run({ pixel_values: new ort.Tensor('float32', row, [1, 3, 224, 224]) }))
        .logits?.data as Float32Array;
      const slice = batched.subarray(index * LABELS.length, (index + 1) * LABELS.length);
      single.forEach((value, label) => expect(slice[label]).toBeCloseTo(value, 5));
    }
  });
});
