// Our tokenizer against the reference oracle (DESIGN §5): transformers' AutoTokenizer on the same
// fixture directory must give the same ids and segment ids, for single texts and pairs. Where
// transformers.js truncates differently (it cuts the end, dropping the final [SEP]), the expected
// ids are built from its untruncated output the way Hugging Face's Rust tokenizers truncate.
import { dirname } from 'node:path';
import { AutoTokenizer, env, type PreTrainedTokenizer } from '@huggingface/transformers';
import { ensureFixture } from '@modelgate/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { type TextTokenizer, encodeInputs, loadTokenizerFromDir, longestFirstLengths } from '../src/index.js';

const ADVERSARIAL_TEXTS = [
  '',
  '   ',
  'hello world',
  "Héllo, wörld! The naïve café's zxqvbn-ish blueberries.",
  'Ångström façade coöperate résumé — ÀÉÎÕÜ',
  'CJK: 我爱自然语言处理 and かな and 한국어',
  'emoji 🤗🚀 and symbols ™ © ½ 👩‍👩‍👧‍👦',
  'control\u0000chars\u0007and\ttabs\nnewlines\u200b\ufeff\r\n',
  `a ${'x'.repeat(120)} word longer than max_input_chars_per_word`,
  "Don't STOP believin' — it's 3.14159% of U.S.A. ...",
  'literal [CLS] and [SEP] and [MASK] in the text',
  'The quick brown fox jumps over the lazy dog. '.repeat(20),
];

const PAIRS: [string, string][] = [
  ['hello', 'world'],
  ['Is this a question?', 'Yes, 这是一个答案 🤗.'],
  ['naïve', 'café'],
  ['The quick brown fox. '.repeat(10), 'jumps over the lazy dog'],
];

env.allowRemoteModels = false;
env.allowLocalModels = true;

async function referenceTokenizer(name: string): Promise<PreTrainedTokenizer> {
  env.localModelPath = dirname(await ensureFixture(name));
  return AutoTokenizer.from_pretrained(name, { local_files_only: true });
}

/** transformers' ids, and its segment ids when the tokenizer returns them (not for DistilBERT). */
function reference(
  tokenizer: PreTrainedTokenizer,
  text: string,
  pair?: string,
): { ids: number[]; typeIds?: number[] } {
  const encoded = tokenizer(text, { text_pair: pair ?? null, return_tensor: false });
  return { ids: encoded.input_ids, ...(encoded.token_type_ids ? { typeIds: encoded.token_type_ids } : {}) };
}

function expectSameEncoding(
  actual: { ids: number[]; typeIds: number[] },
  expected: { ids: number[]; typeIds?: number[] },
): void {
  expect(actual.ids).toEqual(expected.ids);
  if (expected.typeIds !== undefined) expect(actual.typeIds).toEqual(expected.typeIds);
}

const CLS = 101;
const SEP = 102;

describe.each(['tiny-bert-sst2', 'tiny-distilbert-sst2'])('tokenizer of %s', (name) => {
  let ours: TextTokenizer;
  let theirs: PreTrainedTokenizer;

  beforeAll(async () => {
    ours = await loadTokenizerFromDir(await ensureFixture(name));
    theirs = await referenceTokenizer(name);
  });

  it('reads the limits and padding of the bundle', () => {
    expect(ours.maxLength).toBe(512);
    expect(ours.padId).toBe(theirs.pad_token_id);
  });

  it.each(ADVERSARIAL_TEXTS)('gives the same ids and segment ids as transformers for %j', (text) => {
    const expected = reference(theirs, text);
    expectSameEncoding(ours.encode(text), expected);
    expect(expected.ids.at(0)).toBe(CLS);
    expect(expected.ids.at(-1)).toBe(SEP);
  });

  it.each(PAIRS)('gives the same ids and segment ids as transformers for the pair %j / %j', (text, pair) => {
    const expected = reference(theirs, text, pair);
    expectSameEncoding(ours.encode(text, pair), expected);
    expect(expected.ids.filter((id) => id === SEP)).toHaveLength(2);
  });

  it('truncates a long text to maxTokens keeping [CLS] first and [SEP] last', () => {
    const text = ADVERSARIAL_TEXTS.at(-1) ?? '';
    const full = reference(theirs, text).ids;
    for (const maxTokens of [8, 33, 100]) {
      const { tensors } = encodeInputs({
        texts: [text],
        tokenizer: ours,
        inputNames: ['input_ids'],
        maxTokens,
        truncation: true,
      });
      expect(Array.from(tensors.input_ids?.data ?? [], Number)).toEqual([
        ...full.slice(0, maxTokens - 1),
        SEP,
      ]);
    }
  });

  it('truncates a text far past the model maximum to exactly 512 tokens', () => {
    const text = 'blueberries and naïve cafés 🤗 '.repeat(400);
    const full = reference(theirs, text).ids;
    expect(full.length).toBeGreaterThan(2000);
    const { lengths, tensors } = encodeInputs({
      texts: [text],
      tokenizer: ours,
      inputNames: ['input_ids'],
      truncation: true,
    });
    expect(lengths).toEqual([512]);
    expect(Array.from(tensors.input_ids?.data ?? [], Number)).toEqual([...full.slice(0, 511), SEP]);
  });

  it('truncates pairs longest first, like the Rust tokenizers', () => {
    const [text, pair] = ['The quick brown fox jumps. '.repeat(6), 'over the lazy dog, again and again.'];
    const first = reference(theirs, text).ids.slice(1, -1);
    const second = reference(theirs, pair).ids.slice(1, -1);
    for (const maxTokens of [12, 25, 40]) {
      const [keepFirst, keepSecond] = longestFirstLengths(first.length, second.length, maxTokens - 3);
      const { tensors } = encodeInputs({
        texts: [text],
        pairs: [pair],
        tokenizer: ours,
        inputNames: ['input_ids', 'token_type_ids'],
        maxTokens,
        truncation: true,
      });
      expect(Array.from(tensors.input_ids?.data ?? [], Number)).toEqual([
        CLS,
        ...first.slice(0, keepFirst),
        SEP,
        ...second.slice(0, keepSecond),
        SEP,
      ]);
      expect(Array.from(tensors.token_type_ids?.data ?? [], Number)).toEqual([
        ...new Array<number>(keepFirst + 2).fill(0),
        ...new Array<number>(keepSecond + 1).fill(1),
      ]);
    }
  });
});
