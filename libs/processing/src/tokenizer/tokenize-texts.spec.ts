import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { miniTokenizerFiles } from '../../test/mini-tokenizer.js';
import { loadTokenizer } from './text-tokenizer.js';
import { tokenizeTexts } from './tokenize-texts.js';

const tokenizer = loadTokenizer(miniTokenizerFiles()); // model_max_length 16

describe('tokenizeTexts', () => {
  it('answers ids, tokens, code-point offsets and sequence ids, special tokens without offsets', () => {
    const [tokenized] = tokenizeTexts({
      texts: ['Héllo cats'],
      tokenizer,
      addSpecialTokens: true,
      truncation: false,
      batch: false,
    });
    expect(tokenized).toEqual({
      ids: [2, 5, 8, 9, 3],
      tokens: ['[CLS]', 'hello', 'cat', '##s', '[SEP]'],
      offsets: [null, [0, 5], [6, 9], [9, 10], null],
      sequence_ids: [null, 0, 0, 0, null],
    });
  });

  it('lays out a pair as the template does, offsets into each text, and leaves special tokens out on request', () => {
    const options = { texts: ['🤗 cat'], pairs: ['the mat'], tokenizer, truncation: false, batch: false };
    const [withSpecials] = tokenizeTexts({ ...options, addSpecialTokens: true });
    expect(withSpecials?.tokens).toEqual(['[CLS]', '[UNK]', 'cat', '[SEP]', 'the', 'mat', '[SEP]']);
    expect(withSpecials?.offsets).toEqual([null, [0, 1], [2, 5], null, [0, 3], [4, 7], null]);
    expect(withSpecials?.sequence_ids).toEqual([null, 0, 0, null, 1, 1, null]);
    const [bare] = tokenizeTexts({ ...options, addSpecialTokens: false });
    expect(bare).toEqual({
      ids: [1, 8, 7, 12],
      tokens: ['[UNK]', 'cat', 'the', 'mat'],
      offsets: [
        [0, 1],
        [2, 5],
        [0, 3],
        [4, 7],
      ],
      sequence_ids: [0, 0, 1, 1],
    });
  });

  it('truncates to the limit keeping the special tokens, or refuses with 422 naming the input', () => {
    const text = 'a b c d '.repeat(5); // 20 content tokens
    const [cut] = tokenizeTexts({
      texts: [text],
      tokenizer,
      addSpecialTokens: true,
      truncation: true,
      batch: false,
    });
    expect(cut?.ids).toHaveLength(16);
    expect(cut?.tokens.at(0)).toBe('[CLS]');
    expect(cut?.tokens.at(-1)).toBe('[SEP]');
    expect(cut?.offsets.at(-2)).toEqual([26, 27]); // the 14th content token, "b" of the fourth group
    const [bare] = tokenizeTexts({
      texts: [text],
      tokenizer,
      addSpecialTokens: false,
      maxTokens: 5,
      truncation: true,
      batch: false,
    });
    expect(bare?.tokens).toEqual(['a', 'b', 'c', 'd', 'a']);
    expect(() =>
      tokenizeTexts({
        texts: ['a', text],
        tokenizer,
        addSpecialTokens: true,
        truncation: false,
        batch: true,
      }),
    ).toThrow(
      expect.objectContaining({
        code: ErrorCode.TOKEN_LIMIT_EXCEEDED,
        message:
          'text[1] has 22 tokens, more than the limit of 16; shorten it or set parameters.truncation to true',
      }),
    );
  });

  it('cuts a prompt from its start to maxTokens alone, as generation keeps the last tokens', () => {
    const options = { tokenizer, addSpecialTokens: true, batch: false, prompt: true };
    const [cut] = tokenizeTexts({ ...options, texts: ['the cat the mat'], maxTokens: 4, truncation: true });
    expect(cut?.tokens).toEqual(['[CLS]', 'the', 'mat', '[SEP]']);
    expect(cut?.offsets).toEqual([null, [8, 11], [12, 15], null]);
    // No maxTokens: no limit, not even the tokenizer's model_max_length (16).
    const long = Array.from({ length: 20 }, () => 'cat').join(' ');
    expect(tokenizeTexts({ ...options, texts: [long], truncation: false })[0]?.ids).toHaveLength(22);
    expect(() =>
      tokenizeTexts({ ...options, texts: ['the cat the mat'], maxTokens: 4, truncation: false }),
    ).toThrow(expect.objectContaining({ code: ErrorCode.TOKEN_LIMIT_EXCEEDED }));
  });

  it('tokenizes an empty text to the special tokens alone', () => {
    const [empty] = tokenizeTexts({
      texts: [''],
      tokenizer,
      addSpecialTokens: true,
      truncation: false,
      batch: false,
    });
    expect(empty).toEqual({
      ids: [2, 3],
      tokens: ['[CLS]', '[SEP]'],
      offsets: [null, null],
      sequence_ids: [null, null],
    });
  });
});
