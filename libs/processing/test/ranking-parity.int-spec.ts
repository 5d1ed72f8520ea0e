// text-ranking end to end in-process: parseServeRequest → encodeInputs (every (query, text) pair a
// row of one padded batch) → onnxruntime → rankTexts must equal transformers' own model run on its
// pair encodings, one pair at a time, with TEI's sigmoid on the logit: scores to 1e-4, order exact.
// Where transformers.js truncates a pair differently (it cuts the end), the reference ids are cut
// longest-first from its untruncated encoding, as Hugging Face's Rust tokenizers do
// (tokenizer-parity.int-spec.ts checks that rule on its own).
import { dirname } from 'node:path';
import {
  AutoModelForSequenceClassification,
  AutoTokenizer,
  type PreTrainedModel,
  type PreTrainedTokenizer,
  Tensor,
  env,
} from '@huggingface/transformers';
import { ensureFixture } from '@modelgate/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RankedText,
  type TextTokenizer,
  encodeInputs,
  loadTokenizerFromDir,
  longestFirstLengths,
  parseServeRequest,
  rankTexts,
  sigmoid,
} from '../src/index.js';
import { type FixtureModel, openFixtureModel } from './onnx-session.js';

const FIXTURE = 'tiny-bert-reranker';
const TOLERANCE = 1e-4;
const LIMITS = { maxInputChars: 50_000, maxBatchItems: 64, truncation: true };
const QUERY = 'Où est la capitale de la France? 🇫🇷';
const TEXTS = [
  'Paris is the capital of France.',
  'Bananas are yellow.',
  '',
  "Héllo, wörld! The naïve café's zxqvbn-ish blueberries.",
  'CJK: 巴黎是法国的首都 and かな and 한국어',
  'emoji 🤗🚀 and symbols ™ © ½ 👩‍👩‍👧‍👦',
  // Far past the model's 512 tokens: truncated longest first, the query kept whole.
  'The quick brown fox jumps over the lazy dog. '.repeat(80),
];
const CLS = 101;
const SEP = 102;

env.allowRemoteModels = false;
env.allowLocalModels = true;

describe(`text-ranking on ${FIXTURE}`, () => {
  let tokenizer: TextTokenizer;
  let model: FixtureModel;
  let referenceTokenizer: PreTrainedTokenizer;
  let referenceModel: PreTrainedModel;

  beforeAll(async () => {
    const dir = await ensureFixture(FIXTURE);
    env.localModelPath = dirname(dir);
    tokenizer = await loadTokenizerFromDir(dir);
    model = await openFixtureModel(dir);
    referenceTokenizer = await AutoTokenizer.from_pretrained(FIXTURE, { local_files_only: true });
    referenceModel = await AutoModelForSequenceClassification.from_pretrained(FIXTURE, {
      dtype: 'fp32',
      local_files_only: true,
    });
  });

  afterAll(async () => {
    await model?.release();
    await referenceModel?.dispose();
  });

  /** What the gateway answers for a text-ranking body. */
  async function ourRanking(body: unknown): Promise<RankedText[]> {
    const request = parseServeRequest(body, LIMITS, { task: 'text-ranking' });
    const { tensors } = encodeInputs({ ...request, tokenizer, inputNames: model.inputNames });
    expect(tensors.input_ids?.dims[0]).toBe(request.texts.length); // one batch, a row per text
    const logits = await model.run(tensors);
    const ranking = request.ranking;
    return rankTexts(logits.data, logits.dims, {
      rawScores: ranking?.rawScores,
      topN: ranking?.topN,
      texts: ranking?.returnText ? ranking.texts : undefined,
    });
  }

  /** transformers' ids of the pair, cut longest first to the model's 512 tokens. */
  function referencePairIds(query: string, text: string): number[] {
    const contentOf = (value: string): number[] =>
      referenceTokenizer(value, { return_tensor: false }).input_ids.slice(1, -1);
    const [first, second] = [contentOf(query), contentOf(text)];
    const [keepFirst, keepSecond] = longestFirstLengths(first.length, second.length, 512 - 3);
    const ids = [CLS, ...first.slice(0, keepFirst), SEP, ...second.slice(0, keepSecond), SEP];
    // Within the limit the rebuilt ids are transformers' own pair encoding; but for an empty text,
    // where transformers.js drops the pair (`text_pair || null`) and Python's and Rust's tokenizers,
    // TEI's included, keep its [SEP]: [CLS] query [SEP] [SEP], as the gateway does.
    if (first.length + second.length + 3 <= 512 && text !== '') {
      expect(ids).toEqual(referenceTokenizer(query, { text_pair: text, return_tensor: false }).input_ids);
    }
    return ids;
  }

  /** The logit transformers' model gives the pair, alone (no padding). */
  async function referenceLogit(query: string, text: string): Promise<number> {
    const ids = referencePairIds(query, text);
    const separator = ids.indexOf(SEP);
    const tensor = (values: number[]) =>
      new Tensor(
        'int64',
        BigInt64Array.from(values, (v) => BigInt(v)),
        [1, values.length],
      );
    const { logits } = (await referenceModel({
      input_ids: tensor(ids),
      attention_mask: tensor(ids.map(() => 1)),
      token_type_ids: tensor(ids.map((_, i) => (i > separator ? 1 : 0))),
    })) as { logits: Tensor };
    expect(logits.dims).toEqual([1, 1]);
    return Number((logits.data as Float32Array)[0]);
  }

  async function referenceRanking(
    query: string,
    texts: string[],
  ): Promise<{ index: number; logit: number }[]> {
    const scored: { index: number; logit: number }[] = [];
    for (const [index, text] of texts.entries())
      scored.push({ index, logit: await referenceLogit(query, text) });
    return scored.sort((a, b) => b.logit - a.logit || a.index - b.index);
  }

  it('ranks every text like transformers, sigmoid scores to 1e-4 and the order exact', async () => {
    const ours = await ourRanking({ query: QUERY, texts: TEXTS });
    const expected = await referenceRanking(QUERY, TEXTS);
    expect(ours.map((r) => r.index)).toEqual(expected.map((r) => r.index));
    ours.forEach((ranked, i) =>
      expect(Math.abs(ranked.score - sigmoid(expected[i]?.logit ?? NaN))).toBeLessThan(TOLERANCE),
    );
    // Scores that tell the texts apart: the order is not decided by float noise.
    const gaps = expected.slice(1).map((r, i) => (expected[i]?.logit ?? 0) - r.logit);
    expect(Math.min(...gaps)).toBeGreaterThan(10 * TOLERANCE);
  });

  it('answers raw logits, top_n and the texts when asked', async () => {
    const expected = await referenceRanking(QUERY, TEXTS);
    const ours = await ourRanking({
      query: QUERY,
      texts: TEXTS,
      raw_scores: true,
      top_n: 3,
      return_text: true,
    });
    expect(ours).toHaveLength(3);
    ours.forEach((ranked, i) => {
      expect(ranked.index).toBe(expected[i]?.index);
      expect(Math.abs(ranked.score - (expected[i]?.logit ?? NaN))).toBeLessThan(TOLERANCE);
      expect(ranked.text).toBe(TEXTS[ranked.index]);
    });
  });

  it('ranks a text alone with the score it gets in a padded batch', async () => {
    const [alone] = await ourRanking({ query: 'hello', texts: ['world'] });
    const batched = await ourRanking({ query: 'hello', texts: [TEXTS[6] ?? '', 'world'] });
    const same = batched.find((r) => r.index === 1);
    expect(Math.abs((alone?.score ?? NaN) - (same?.score ?? NaN))).toBeLessThan(1e-5);
    expect(Math.abs((alone?.score ?? NaN) - sigmoid(await referenceLogit('hello', 'world')))).toBeLessThan(
      TOLERANCE,
    );
  });
});
