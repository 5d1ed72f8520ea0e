// The merged GPT-2 decoder fixture (Optimum's decoder_model_merged layout) in onnxruntime and
// transformers.js: use_cache_branch false runs the no-past branch on an empty past, true the
// with-past branch, each giving exactly what the unmerged tiny-gpt2 (same weights) gives, and
// transformers.js' greedy text-generation pipeline gives the unmerged fixture's tokens.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import onnxProto from 'onnx-proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_FILE, ensureFixture, getFixtureSpec, transformersGreedy } from '../src/index.js';
import { decoderFeeds, maxAbsDiff } from './fixture-session.js';

const spec = getFixtureSpec('tiny-gpt2-merged');
const HEAD_SIZE = spec.hiddenSize / spec.numHeads;
const PROMPTS = ['Hello, my name is', 'The quick brown fox', 'CJK 我爱自然语言处理 and emoji 🤗', 'a'];

let mergedDir: string;
let plainDir: string;
let merged: ort.InferenceSession;
let plain: ort.InferenceSession;

beforeAll(async () => {
  [mergedDir, plainDir] = await Promise.all([ensureFixture('tiny-gpt2-merged'), ensureFixture('tiny-gpt2')]);
  [merged, plain] = await Promise.all([
    ort.InferenceSession.create(join(mergedDir, MODEL_FILE)),
    ort.InferenceSession.create(join(plainDir, MODEL_FILE)),
  ]);
});
afterAll(async () => {
  await merged?.release();
  await plain?.release();
});

type Outputs = ort.InferenceSession.OnnxValueMapType;

const feeds = (ids: number[], past: Outputs | undefined, pastLength: number) =>
  decoderFeeds(spec, ids, past, pastLength);

const branch = (useCache: boolean) => ({
  use_cache_branch: new ort.Tensor('bool', Uint8Array.of(useCache ? 1 : 0), [1]),
});
const values = (tensor: ort.OnnxValue | undefined) => Array.from(tensor?.data as Float32Array);

describe('tiny-gpt2-merged graph', () => {
  it("is Optimum's merged layout: use_cache_branch BOOL [1] last, one If node with both branches", async () => {
    expect(merged.inputNames).toEqual([...plain.inputNames, 'use_cache_branch']);
    expect(merged.outputNames).toEqual(plain.outputNames);
    const model = onnxProto.onnx.ModelProto.decode(await readFile(join(mergedDir, MODEL_FILE)));
    const nodes = model.graph?.node ?? [];
    expect(nodes.map((node) => node.opType)).toEqual(['If']);
    const branchNodes = (name: string): onnxProto.onnx.INodeProto[] =>
      nodes[0]?.attribute?.find((attribute) => attribute.name === name)?.g?.node ?? [];
    const reads = (name: string) =>
      branchNodes(name).some((node) => (node.input ?? []).includes('past_key_values.0.key'));
    expect(reads('then_branch')).toBe(true);
    expect(reads('else_branch')).toBe(false);
    // One copy of every weight, in the outer graph that both branches read.
    const names = (model.graph?.initializer ?? []).map((tensor) => tensor.name);
    expect(names.filter((name) => name === 'transformer.wte.weight')).toHaveLength(1);
  });

  it('runs the no-past branch on an empty past and the with-past branch after it, as the unmerged graph does', async () => {
    const prompt = [15496, 11, 616, 1438];
    const plainPrefill = await plain.run(feeds(prompt, undefined, 0));
    const mergedPrefill = await merged.run({ ...feeds(prompt, undefined, 0), ...branch(false) });
    for (const name of plain.outputNames) {
      expect(mergedPrefill[name]?.dims, name).toEqual(plainPrefill[name]?.dims);
      expect(maxAbsDiff(values(mergedPrefill[name]), values(plainPrefill[name])), name).toBeLessThan(1e-5);
    }
    let [plainPast, mergedPast] = [plainPrefill, mergedPrefill];
    for (const [step, token] of [318, 257, 1332].entries()) {
      const at = prompt.length + step;
      plainPast = await plain.run(feeds([token], plainPast, at));
      mergedPast = await merged.run({ ...feeds([token], mergedPast, at), ...branch(true) });
      expect(mergedPast['present.1.value']?.dims).toEqual([1, spec.numHeads, at + 1, HEAD_SIZE]);
      expect(maxAbsDiff(values(mergedPast.logits), values(plainPast.logits))).toBeLessThan(1e-5);
    }
  });
});

describe('tiny-gpt2-merged in transformers.js', () => {
  it.each(PROMPTS)(
    "gives the unmerged tiny-gpt2's greedy tokens in the text-generation pipeline for %j",
    async (prompt) => {
      const [mergedGreedy, plainGreedy] = [
        await transformersGreedy(mergedDir, prompt, 12),
        await transformersGreedy(plainDir, prompt, 12),
      ];
      expect(mergedGreedy.tokenIds).toHaveLength(12);
      expect(mergedGreedy).toEqual(plainGreedy);
    },
  );
});
