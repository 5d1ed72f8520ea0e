// The GPT-2 decoder fixture without position_ids in onnxruntime and transformers.js: it numbers
// positions from its past length, so one unpadded row gives exactly what tiny-gpt2 (same weights)
// gives when fed those positions, and transformers.js' greedy pipeline gives tiny-gpt2's tokens.
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_FILE, ensureFixture, getFixtureSpec, transformersGreedy } from '../src/index.js';
import { decoderFeeds, maxAbsDiff } from './fixture-session.js';

const spec = getFixtureSpec('tiny-gpt2-no-positions');

let implicitDir: string;
let plainDir: string;
let implicit: ort.InferenceSession;
let plain: ort.InferenceSession;

beforeAll(async () => {
  [implicitDir, plainDir] = await Promise.all([
    ensureFixture('tiny-gpt2-no-positions'),
    ensureFixture('tiny-gpt2'),
  ]);
  [implicit, plain] = await Promise.all([
    ort.InferenceSession.create(join(implicitDir, MODEL_FILE)),
    ort.InferenceSession.create(join(plainDir, MODEL_FILE)),
  ]);
});
afterAll(async () => {
  await implicit?.release();
  await plain?.release();
});

const values = (tensor: ort.OnnxValue | undefined) => Array.from(tensor?.data as Float32Array);

describe('tiny-gpt2-no-positions graph', () => {
  it("takes tiny-gpt2's inputs but position_ids, and gives its outputs on one row, prefill and decode", async () => {
    expect(implicit.inputNames).toEqual(plain.inputNames.filter((name) => name !== 'position_ids'));
    expect(implicit.outputNames).toEqual(plain.outputNames);
    const prompt = [15496, 11, 616, 1438];
    let plainPast = await plain.run(decoderFeeds(spec, prompt, undefined, 0));
    let implicitPast = await implicit.run(decoderFeeds(spec, prompt, undefined, 0, false));
    for (const name of plain.outputNames)
      expect(maxAbsDiff(values(implicitPast[name]), values(plainPast[name])), name).toBeLessThan(1e-5);
    for (const [step, token] of [318, 257, 1332].entries()) {
      const at = prompt.length + step;
      plainPast = await plain.run(decoderFeeds(spec, [token], plainPast, at));
      implicitPast = await implicit.run(decoderFeeds(spec, [token], implicitPast, at, false));
      expect(maxAbsDiff(values(implicitPast.logits), values(plainPast.logits))).toBeLessThan(1e-5);
    }
  });
});

describe('tiny-gpt2-no-positions in transformers.js', () => {
  it.each(['Hello, my name is', 'The quick brown fox'])(
    "gives tiny-gpt2's greedy tokens in the text-generation pipeline for %j",
    async (prompt) => {
      const [implicitGreedy, plainGreedy] = [
        await transformersGreedy(implicitDir, prompt, 12),
        await transformersGreedy(plainDir, prompt, 12),
      ];
      expect(implicitGreedy.tokenIds).toHaveLength(12);
      expect(implicitGreedy).toEqual(plainGreedy);
    },
  );
});
