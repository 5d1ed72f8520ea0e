import { ErrorCode } from '@modelgate/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MINI_VOCAB, miniId, miniTokenizerFiles, miniTokenizerJson } from '../../test/mini-tokenizer.js';
import { loadTokenizer } from '../tokenizer/text-tokenizer.js';
import { encodeInputs } from './encode-inputs.js';

const BERT_INPUTS = ['input_ids', 'attention_mask', 'token_type_ids'];
const DISTILBERT_INPUTS = ['input_ids', 'attention_mask'];
const CLS = miniId('[CLS]');
const SEP = miniId('[SEP]');
const tokenizer = loadTokenizer(miniTokenizerFiles());

const big = (values: number[]): BigInt64Array => BigInt64Array.from(values, (v) => BigInt(v));
const rowsOf = (data: BigInt64Array, width: number): number[][] =>
  Array.from({ length: data.length / width }, (_, r) =>
    Array.from(data.subarray(r * width, (r + 1) * width), Number),
  );

describe('encodeInputs', () => {
  it('right-pads a batch to the longest input with a 1/0 attention mask and segment ids', () => {
    const { tensors, lengths } = encodeInputs({
      texts: ['hello world', 'the cat sat on the mat'],
      tokenizer,
      inputNames: BERT_INPUTS,
      truncation: true,
    });
    expect(lengths).toEqual([4, 8]);
    expect(Object.keys(tensors)).toEqual(BERT_INPUTS);
    expect(tensors.input_ids?.dims).toEqual([2, 8]);
    expect(tensors.input_ids?.datatype).toBe('INT64');
    expect(rowsOf(tensors.input_ids?.data ?? big([]), 8)).toEqual([
      [CLS, miniId('hello'), miniId('world'), SEP, 0, 0, 0, 0],
      [CLS, 7, 8, 10, 11, 7, 12, SEP],
    ]);
    expect(tensors.attention_mask?.data).toEqual(big([1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]));
    expect(tensors.token_type_ids?.data).toEqual(new BigInt64Array(16));
  });

  it('builds only the inputs the model declares, in its order (DistilBERT has no token_type_ids)', () => {
    const { tensors } = encodeInputs({
      texts: ['hello'],
      tokenizer,
      inputNames: ['attention_mask', 'input_ids'],
      truncation: true,
    });
    expect(Object.keys(tensors)).toEqual(['attention_mask', 'input_ids']);
  });

  it('marks the second text of a pair with segment id 1', () => {
    const { tensors } = encodeInputs({
      texts: ['hello'],
      pairs: ['the cat'],
      tokenizer,
      inputNames: BERT_INPUTS,
      truncation: true,
    });
    expect(tensors.input_ids?.data).toEqual(big([CLS, miniId('hello'), SEP, 7, 8, SEP]));
    expect(tensors.token_type_ids?.data).toEqual(big([0, 0, 0, 1, 1, 1]));
  });

  it('pads with the tokenizer pad id', () => {
    const padded = loadTokenizer({
      ...miniTokenizerFiles(),
      tokenizerJson: { ...miniTokenizerJson(), padding: { pad_id: 4 } },
    });
    const { tensors } = encodeInputs({
      texts: ['a', 'a b c'],
      tokenizer: padded,
      inputNames: DISTILBERT_INPUTS,
      truncation: true,
    });
    expect(tensors.input_ids?.data.slice(0, 5)).toEqual(big([CLS, miniId('a'), SEP, 4, 4]));
  });

  it('truncates the content and keeps [CLS] … [SEP] within maxTokens', () => {
    const { tensors, lengths } = encodeInputs({
      texts: ['a b c d a b c d'],
      tokenizer,
      inputNames: DISTILBERT_INPUTS,
      maxTokens: 5,
      truncation: true,
    });
    expect(lengths).toEqual([5]);
    expect(tensors.input_ids?.data).toEqual(big([CLS, 15, 16, 17, SEP]));
  });

  it('truncates pairs longest first', () => {
    const { tensors } = encodeInputs({
      texts: ['a b'],
      pairs: ['a b c d a b c d'],
      tokenizer,
      inputNames: BERT_INPUTS,
      maxTokens: 8,
      truncation: true,
    });
    expect(tensors.input_ids?.data).toEqual(big([CLS, 15, 16, SEP, 15, 16, 17, SEP]));
    expect(tensors.token_type_ids?.data).toEqual(big([0, 0, 0, 0, 1, 1, 1, 1]));
  });

  it('never goes past the tokenizer maximum length, even when maxTokens is larger', () => {
    const { lengths } = encodeInputs({
      texts: ['a '.repeat(40)],
      tokenizer,
      inputNames: DISTILBERT_INPUTS,
      maxTokens: 1000,
      truncation: true,
    });
    expect(lengths).toEqual([tokenizer.maxLength]);
  });

  it('rejects an over-long single text with TOKEN_LIMIT_EXCEEDED naming `text`, with count and limit', () => {
    const call = (): unknown =>
      encodeInputs({
        texts: ['a b c d a b c d'],
        tokenizer,
        inputNames: DISTILBERT_INPUTS,
        maxTokens: 6,
        truncation: false,
      });
    expect(call).toThrow(
      expect.objectContaining({ code: ErrorCode.TOKEN_LIMIT_EXCEEDED, details: { field: 'text' } }),
    );
    expect(call).toThrow(/text has 10 tokens, more than the limit of 6/);
  });

  it('names the offending element of a batch as text[i]', () => {
    expect(() =>
      encodeInputs({
        texts: ['a', 'a b c d a b c d'],
        tokenizer,
        inputNames: DISTILBERT_INPUTS,
        maxTokens: 6,
        truncation: false,
      }),
    ).toThrow(
      expect.objectContaining({ code: ErrorCode.TOKEN_LIMIT_EXCEEDED, details: { field: 'text[1]' } }),
    );
    expect(() =>
      encodeInputs({
        texts: ['a b c d a b c d'],
        batch: true,
        tokenizer,
        inputNames: DISTILBERT_INPUTS,
        maxTokens: 6,
        truncation: false,
      }),
    ).toThrow(/text\[0\] has 10 tokens/);
  });

  it('refuses a model input it cannot build from text, pointing at raw endpoints', () => {
    const call = (): unknown =>
      encodeInputs({ texts: ['a'], tokenizer, inputNames: ['input_ids', 'pixel_values'], truncation: true });
    expect(call).toThrow(expect.objectContaining({ code: ErrorCode.INVALID_ARGUMENT }));
    expect(call).toThrow(/'pixel_values' that the gateway cannot build.*raw/);
    expect(() =>
      encodeInputs({ texts: ['a'], tokenizer, inputNames: ['attention_mask'], truncation: true }),
    ).toThrow(/no input_ids/);
  });

  it('refuses an empty batch, mismatched pairs and a limit too small for the special tokens', () => {
    const base = { tokenizer, inputNames: DISTILBERT_INPUTS, truncation: true };
    expect(() => encodeInputs({ ...base, texts: [] })).toThrow(/no text/);
    expect(() => encodeInputs({ ...base, texts: ['a', 'b'], pairs: ['c'] })).toThrow(/text_pair has 1/);
    expect(() => encodeInputs({ ...base, texts: ['a b'], maxTokens: 1 })).toThrow(/no room/);
  });

  it('never exceeds maxTokens and always keeps [CLS] first and [SEP] last (property)', () => {
    const words = MINI_VOCAB.slice(5).filter((w) => !w.startsWith('##'));
    const text = fc.array(fc.constantFrom(...words), { maxLength: 40 }).map((w) => w.join(' '));
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 4 }),
        fc.option(text, { nil: undefined }),
        fc.integer({ min: 3, max: 20 }),
        (texts, pair, maxTokens) => {
          const pairs = pair === undefined ? undefined : texts.map(() => pair);
          const { tensors, lengths } = encodeInputs({
            texts,
            pairs,
            tokenizer,
            inputNames: BERT_INPUTS,
            maxTokens,
            truncation: true,
          });
          const width = tensors.input_ids?.dims[1] ?? 0;
          expect(width).toBe(Math.max(...lengths));
          rowsOf(tensors.input_ids?.data ?? big([]), width).forEach((row, r) => {
            const length = lengths[r] ?? 0;
            expect(length).toBeLessThanOrEqual(Math.min(maxTokens, tokenizer.maxLength));
            expect(row[0]).toBe(CLS);
            expect(row[length - 1]).toBe(SEP);
            expect(row.slice(length).every((id) => id === tokenizer.padId)).toBe(true);
          });
        },
      ),
    );
  });
});
