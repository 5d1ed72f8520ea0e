// The reference oracle (DESIGN §5): @huggingface/transformers, loading a fixture directory as a
// local model, must agree with our own onnxruntime run and tokenizer on the same inputs.
import { dirname } from 'node:path';
import { AutoTokenizer, env, pipeline, type PreTrainedTokenizer } from '@huggingface/transformers';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureFixture, getFixtureSpec } from '../src/index.js';
import {
  encodeText,
  loadFixtureTokenizer,
  openFixtureSession,
  rowsOf,
  runTexts,
  sigmoid,
  softmax,
} from './fixture-session.js';

const ACCENTS_AND_OOV = "Héllo, wörld! The naïve café's zxqvbn-ish blueberries.";
// bert-base-uncased ids: accents stripped, "zxqvbn" split into z ##x ##q ##vb ##n, "ish" into is ##h.
const ACCENTS_AND_OOV_IDS = [
  101, 7592, 1010, 2088, 999, 1996, 15743, 7668, 1005, 1055, 1062, 2595, 4160, 26493, 2078, 1011, 2003, 2232,
  2630, 20968, 1012, 102,
];
const ADVERSARIAL_TEXTS = [
  '',
  '   ',
  'hello world',
  ACCENTS_AND_OOV,
  'CJK: 我爱自然语言处理 and かな and 한국어',
  'emoji 🤗🚀 and symbols ™ © ½',
  'control\u0000chars\u0007and\ttabs\nnewlines\u200b',
  `a ${'x'.repeat(120)} word longer than max_input_chars_per_word`,
  "Don't STOP believin' — it's 3.14159% of U.S.A. ...",
  'The quick brown fox jumps over the lazy dog. '.repeat(20),
];

env.allowRemoteModels = false;
env.allowLocalModels = true;

async function ourIds(name: string): Promise<(text: string) => number[]> {
  const tokenizer = await loadFixtureTokenizer(await ensureFixture(name));
  return (text) => encodeText(tokenizer, text).ids;
}

async function referenceTokenizer(name: string): Promise<PreTrainedTokenizer> {
  env.localModelPath = dirname(await ensureFixture(name));
  return AutoTokenizer.from_pretrained(name, { local_files_only: true });
}

function referenceIds(tokenizer: PreTrainedTokenizer, text: string): number[] {
  return tokenizer(text, { return_tensor: false }).input_ids;
}

describe('fixture tokenizer', () => {
  let reference: PreTrainedTokenizer;
  let encode: (text: string) => number[];

  beforeAll(async () => {
    reference = await referenceTokenizer('tiny-bert-sst2');
    encode = await ourIds('tiny-bert-sst2');
  });

  it('maps "hello world" to [CLS] hello world [SEP]', () => {
    expect(referenceIds(reference, 'hello world')).toEqual([101, 7592, 2088, 102]);
    expect(encode('hello world')).toEqual([101, 7592, 2088, 102]);
  });

  it('strips accents, splits punctuation and word-pieces unknown words like bert-base-uncased', () => {
    expect(referenceIds(reference, ACCENTS_AND_OOV)).toEqual(ACCENTS_AND_OOV_IDS);
    expect(encode(ACCENTS_AND_OOV)).toEqual(ACCENTS_AND_OOV_IDS);
    expect(reference.decode(ACCENTS_AND_OOV_IDS, { skip_special_tokens: true })).toBe(
      "hello, world! the naive cafe's zxqvbn - ish blueberries.",
    );
  });

  it.each(ADVERSARIAL_TEXTS)('gives the same ids as transformers for %j', (text) => {
    expect(encode(text)).toEqual(referenceIds(reference, text));
  });

  it('marks the second text of a pair with token type 1', async () => {
    const tokenizer = await loadFixtureTokenizer(await ensureFixture('tiny-bert-sst2'));
    const pair = tokenizer.encode('hello', { text_pair: 'world', return_token_type_ids: true });
    expect(pair.ids).toEqual([101, 7592, 102, 2088, 102]);
    expect(pair.token_type_ids).toEqual([0, 0, 0, 1, 1]);
    const referencePair = reference('hello', { text_pair: 'world', return_tensor: false });
    expect(referencePair.token_type_ids).toEqual([0, 0, 0, 1, 1]);
  });
});

const CLASSIFIER_TEXTS = ['I love this movie, it was great!', 'terrible, awful film', ACCENTS_AND_OOV, 'ok'];

describe.each(['tiny-bert-sst2', 'tiny-distilbert-sst2', 'tiny-bert-multilabel'])(
  'transformers pipeline on %s',
  (name) => {
    it('scores every label exactly as our onnxruntime logits do', async () => {
      const spec = getFixtureSpec(name);
      if (spec.head.kind !== 'sequence-classification') throw new Error(`${name} is not a classifier`);
      const dir = await ensureFixture(name);
      env.localModelPath = dirname(dir);
      const classifier = await pipeline('text-classification', name, {
        dtype: 'fp32',
        local_files_only: true,
      });
      const reference = await AutoTokenizer.from_pretrained(name, { local_files_only: true });
      const session = await openFixtureSession(dir);
      try {
        const activation = spec.head.problemType === 'multi_label_classification' ? sigmoid : softmax;
        for (const text of CLASSIFIER_TEXTS) {
          const [results] = await classifier([text], { top_k: null });
          const encoded = reference(text, { return_tensor: false });
          const ids = {
            ids: encoded.input_ids,
            typeIds: encoded.token_type_ids ?? encoded.input_ids.map(() => 0),
          };
          const [logits = new Float32Array()] = rowsOf(await runTexts(session, [ids]));
          const expected = activation(logits);
          expect(results).toHaveLength(spec.head.labels.length);
          for (const { label, score } of results ?? []) {
            expect(Math.abs(score - (expected[spec.head.labels.indexOf(label)] ?? NaN))).toBeLessThan(1e-5);
          }
        }
      } finally {
        await session.release();
        await classifier.dispose();
      }
    });
  },
);
