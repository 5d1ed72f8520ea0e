import { describe, expect, it } from 'vitest';
import { type TokenizerSteps, alignTokens } from './token-offsets.js';
import { miniByteLevelTokenizerJson } from '../../test/mini-tokenizer.js';
import { loadTokenizer } from './text-tokenizer.js';

// A small BERT-like pipeline: [MASK] kept whole, lower-case + accents stripped, control characters
// removed, CJK characters padded with spaces, split on whitespace and punctuation, WordPiece over a
// tiny vocabulary.
const VOCAB = new Set(['hello', 'cafe', 'new', 'york', '##er', '!', ',', '我', 'ς', 'σ', 'ο', '##δ', '##ο']);

function wordPiece(word: string): string[] {
  const pieces: string[] = [];
  let rest = word;
  while (rest.length > 0) {
    let end = rest.length;
    const prefix = pieces.length > 0 ? '##' : '';
    while (end > 0 && !VOCAB.has(prefix + rest.slice(0, end))) end--;
    if (end === 0) return ['[UNK]'];
    pieces.push(prefix + rest.slice(0, end));
    rest = rest.slice(end);
  }
  return pieces;
}

const STEPS: TokenizerSteps = {
  splitAddedTokens: (text) => text.split(/(\[MASK\])/).filter((part) => part.length > 0),
  splitNormalizedAddedTokens: (text) => [text],
  isAddedToken: (section) => section === '[MASK]',
  normalize: (text) =>
    text
      .replace(/\p{Cc}/gu, '')
      .replace(/(\p{Script=Han})/gu, ' $1 ')
      .normalize('NFD')
      .replace(/\p{Mn}/gu, '')
      .toLowerCase(),
  preTokenize: (text) => text.match(/[^\s\p{P}]+|\p{P}/gu) ?? [],
  wordTokens: (word) => wordPiece(word),
  continuingSubwordPrefix: '##',
  unknownToken: '[UNK]',
};

const spans = (text: string) => {
  const { tokens, offsets } = alignTokens(text, STEPS);
  return tokens.map((token, i) => [token, ...(offsets[i] ?? [])]);
};

describe('alignTokens', () => {
  it('places word pieces on the characters they came from', () => {
    expect(spans('Hello, New Yorker!')).toEqual([
      ['hello', 0, 5],
      [',', 5, 6],
      ['new', 7, 10],
      ['york', 11, 15],
      ['##er', 15, 17],
      ['!', 17, 18],
    ]);
  });

  it('counts code points: an emoji before a word moves it by one character', () => {
    expect(spans('🤗 café')).toEqual([
      ['[UNK]', 0, 1],
      ['cafe', 2, 6],
    ]);
  });

  // Rust tokenizers' alignment (NormalizedString drops a removed character's): checked on the
  // fixtures' BERT tokenizer against npm `tokenizers` 0.23.2 in removed-characters-parity.int-spec.ts.
  it('leaves a combining accent or control character removed at a word’s or the text’s end out of every token', () => {
    expect(spans('cafe\u0301 new\u0007')).toEqual([
      ['cafe', 0, 4],
      ['new', 6, 9],
    ]);
    expect(spans('hello\u0007\u0007!')).toEqual([
      ['hello', 0, 5],
      ['!', 7, 8],
    ]);
  });

  it('ends a word piece before a character removed after it, the next piece starting after it', () => {
    expect(spans('new\u0301er')).toEqual([
      ['new', 0, 3],
      ['##er', 4, 6],
    ]);
  });

  it('spans a character removed between the kept characters of one token', () => {
    expect(spans('ca\u0301fe')).toEqual([['cafe', 0, 5]]);
  });

  it('starts a word after a character removed before it', () => {
    expect(spans('\u0007hello \u0301cafe')).toEqual([
      ['hello', 1, 6],
      ['cafe', 8, 12],
    ]);
  });

  it('keeps an added token whole and splits CJK characters into words of their own', () => {
    expect(spans('new[MASK]我york')).toEqual([
      ['new', 0, 3],
      ['[MASK]', 3, 9],
      ['我', 9, 10],
      ['york', 10, 14],
    ]);
  });

  it('follows the whole-text normalization where it looks at neighbours (final sigma)', () => {
    // "ΟΔΟΣ" lower-cases to "οδος" whole, but "σ" letter by letter: the tokens are the former's.
    const { tokens, offsets } = alignTokens('ΟΔΟΣ', STEPS);
    expect(tokens).toEqual(['[UNK]']);
    expect(offsets).toEqual([[0, 4]]);
  });

  it('answers nothing for an empty or blank text', () => {
    expect(spans('')).toEqual([]);
    expect(spans('  \n ')).toEqual([]);
  });
});

describe('byte-level BPE offsets (GPT-2, RoBERTa)', () => {
  const offsetsOf = (text: string, trimOffsets: boolean, addPrefixSpace = false) => {
    const tokenizer = loadTokenizer({
      tokenizerJson: miniByteLevelTokenizerJson(trimOffsets, addPrefixSpace),
      tokenizerConfig: { model_max_length: 64 },
    });
    const { ids, offsets } = tokenizer.tokenizeWithOffsets(text);
    return ids.map((id, i) => [tokenizer.idToToken(id), offsets[i]]);
  };

  it('places byte-level tokens on their characters, leaving out spaces where the post-processor trims', () => {
    expect(offsetsOf('Hi, my name', true)).toEqual([
      ['H', [0, 1]],
      ['i', [1, 2]],
      [',', [2, 3]],
      ['Ġmy', [4, 6]],
      ['Ġname', [7, 11]],
    ]);
    expect(offsetsOf('Hi, my name', false).slice(3)).toEqual([
      ['Ġmy', [3, 6]],
      ['Ġname', [6, 11]],
    ]);
  });

  it('gives every byte token of a character the whole character, in code points, and spans a lone space at its end', () => {
    // "é" is two bytes, "🚀" four (two UTF-16 units, one code point); two spaces before "my".
    expect(offsetsOf('é🚀  my', true)).toEqual([
      ['Ã', [0, 1]],
      ['©', [0, 1]],
      ['ð', [1, 2]],
      ['Ł', [1, 2]],
      ['ļ', [1, 2]],
      ['Ģ', [1, 2]],
      ['Ġ', [3, 3]],
      ['Ġmy', [4, 6]],
    ]);
  });

  it('places the first word after a space the pre-tokenizer added (add_prefix_space), not on a later copy of it', () => {
    expect(offsetsOf('name, my name', true, true)).toEqual([
      ['Ġname', [0, 4]],
      [',', [4, 5]],
      ['Ġmy', [6, 8]],
      ['Ġname', [9, 13]],
    ]);
  });
});
