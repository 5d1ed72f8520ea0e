// The GPT-2 fixture's byte-level BPE tokenizer.json through our tokenizer adapter against the
// reference oracle (DESIGN §5): transformers' AutoTokenizer on the same directory must give the
// same ids, and both must decode the ids back to the text, byte for byte.
import { dirname } from 'node:path';
import { AutoTokenizer, env, type PreTrainedTokenizer } from '@huggingface/transformers';
import { cleanUpTokenizationSpaces } from '@modelgate/generation';
import { GPT2_END_OF_TEXT, ensureFixture } from '@modelgate/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { type TextTokenizer, loadTokenizerFromDir } from '../src/index.js';

const FIXTURE = 'tiny-gpt2';

const TEXTS = [
  ' ',
  '   ',
  'Hello world',
  ' leading space and  double  spaces ',
  "Héllo, wörld! The naïve café's zxqvbn-ish blueberries.",
  'Ångström façade coöperate résumé — ÀÉÎÕÜ',
  'CJK: 我爱自然语言处理 and かな and 한국어',
  'emoji 🤗🚀 and symbols ™ © ½ 👩‍👩‍👧‍👦',
  'control\u0000chars\u0007and\ttabs\nnewlines\u200b\ufeff\r\n',
  "Don't STOP believin' — it's 3.14159% of U.S.A. ... I'll we've they're",
  'code: def f(x):\n    return x ** 2  # square',
  'The quick brown fox jumps over the lazy dog. '.repeat(10),
];

env.allowRemoteModels = false;
env.allowLocalModels = true;

describe('GPT-2 fixture tokenizer', () => {
  let reference: PreTrainedTokenizer;
  let ours: TextTokenizer;

  beforeAll(async () => {
    const dir = await ensureFixture(FIXTURE);
    env.localModelPath = dirname(dir);
    reference = await AutoTokenizer.from_pretrained(FIXTURE, { local_files_only: true });
    ours = await loadTokenizerFromDir(dir);
  });

  function referenceIds(text: string): number[] {
    return reference(text, { return_tensor: false }).input_ids;
  }

  function ourDecode(ids: readonly number[]): string {
    return ours.decodeTokens(ids.map((id) => ours.idToToken(id) ?? ''));
  }

  it('encodes "Hello world" with the GPT-2 ids and adds no special tokens', () => {
    expect(referenceIds('Hello world')).toEqual([15496, 995]);
    expect(ours.encode('Hello world').ids).toEqual([15496, 995]);
    expect(ours.specialTokenCount(false)).toBe(0);
  });

  it.each(TEXTS)('gives the same ids as transformers and decodes back to %j', (text) => {
    const ids = referenceIds(text);
    expect(ours.encode(text).ids).toEqual(ids);
    expect(ours.tokenize(text)).toEqual(ids);
    expect(reference.decode(ids)).toBe(text);
    expect(ourDecode(ids)).toBe(text);
  });

  it('splits multi-byte characters into byte tokens that only decode whole', () => {
    const ids = referenceIds('🤗');
    expect(ids.length).toBeGreaterThan(1);
    expect(reference.decode(ids.slice(0, -1))).toContain('\ufffd');
    expect(ourDecode(ids)).toBe('🤗');
  });

  it('maps <|endoftext|> in the text to its special id 50256', () => {
    const text = `one${GPT2_END_OF_TEXT.content}two`;
    const ids = referenceIds(text);
    expect(ids).toContain(GPT2_END_OF_TEXT.id);
    expect(ours.encode(text).ids).toEqual(ids);
    expect(ours.specialIds.has(GPT2_END_OF_TEXT.id)).toBe(true);
    expect(reference.decode(ids, { skip_special_tokens: true })).toBe('onetwo');
  });

  it('gives no ids for an empty text', () => {
    expect(referenceIds('')).toEqual([]);
    expect(ours.encode('').ids).toEqual([]);
  });

  it('reads the length limit from n_positions', () => {
    expect(ours.maxLength).toBe(256);
  });

  it("cleans tokenization spaces as transformers' decode does when asked", () => {
    const spaced =
      "Hello , world . I do n't know ! He 's here ? we 're sure they 've gone , I 'm told ' yes '";
    for (const text of [...TEXTS, spaced]) {
      const ids = referenceIds(text);
      expect(cleanUpTokenizationSpaces(ourDecode(ids))).toBe(
        reference.decode(ids, { clean_up_tokenization_spaces: true }),
      );
    }
  });
});
