import { describe, expect, it } from 'vitest';
import { type WordPieceTables, compileAsciiWordPiece } from './ascii-wordpiece.js';

const VOCAB = [
  '[UNK]',
  '[CLS]',
  'un',
  '##aff',
  '##able',
  'hello',
  'world',
  '!',
  ',',
  '.',
  '##s',
  'cat',
  '1',
  '##2',
];
const ids = new Map(VOCAB.map((token, id) => [token, id]));
const id = (token: string): number => ids.get(token) ?? -1;

function tables(overrides: Partial<WordPieceTables> = {}): WordPieceTables {
  return {
    lowercase: true,
    vocabulary: ids,
    idOf: (token) => ids.get(token) ?? id('[UNK]'),
    unknownId: id('[UNK]'),
    continuingSubwordPrefix: '##',
    maxInputCharsPerWord: 100,
    addedTokenStarts: ['['],
    ...overrides,
  };
}

describe('compileAsciiWordPiece', () => {
  const tokenize = compileAsciiWordPiece(tables()).ids;

  it('splits words into the longest pieces, continuations with the prefix', () => {
    expect(tokenize('unaffable cats')).toEqual([id('un'), id('##aff'), id('##able'), id('cat'), id('##s')]);
    expect(tokenize('12')).toEqual([id('1'), id('##2')]);
  });

  it('lowercases, and keeps the case when the normalizer does not lowercase', () => {
    expect(tokenize('Hello WORLD')).toEqual([id('hello'), id('world')]);
    expect(compileAsciiWordPiece(tables({ lowercase: false })).ids('Hello world')).toEqual([
      id('[UNK]'),
      id('world'),
    ]);
  });

  it('makes every punctuation character a word of its own and splits on tabs and line breaks', () => {
    expect(tokenize('hello,world!.')).toEqual([id('hello'), id(','), id('world'), id('!'), id('.')]);
    expect(tokenize('\thello\r\nworld  ')).toEqual([id('hello'), id('world')]);
    expect(tokenize('')).toEqual([]);
    expect(tokenize(' \t ')).toEqual([]);
  });

  it('gives one unknown id for a word that cannot be split, whatever pieces matched before', () => {
    expect(tokenize('unaffablex hello')).toEqual([id('[UNK]'), id('hello')]);
    expect(tokenize('?')).toEqual([id('[UNK]')]);
  });

  it('makes a word longer than maxInputCharsPerWord unknown as a whole', () => {
    const short = compileAsciiWordPiece(tables({ maxInputCharsPerWord: 5 })).ids;
    expect(short('hello world!')).toEqual([id('hello'), id('world'), id('!')]);
    expect(short('helloo')).toEqual([id('[UNK]')]);
  });

  it('maps a matched token through idOf (an added token keeps its own id)', () => {
    const added = compileAsciiWordPiece(tables({ idOf: (token) => (token === 'cat' ? 99 : id(token)) })).ids;
    expect(added('cats')).toEqual([99, id('##s')]);
  });

  it('leaves to the library text with a character outside printable ASCII or one an added token starts with', () => {
    for (const text of ['café', 'hello\u0000', 'a\u007fb', 'hello 🤗', 'say [CLS] hi', 'tab\u000bvertical']) {
      expect(tokenize(text)).toBeUndefined();
    }
    // Both cases of an added token's first letter: the token may match the raw or the lowercased text.
    const lettered = compileAsciiWordPiece(tables({ addedTokenStarts: ['x'] })).ids;
    expect(lettered('hello X')).toBeUndefined();
    expect(lettered('hello x')).toBeUndefined();
    expect(lettered('hello [')).toEqual([id('hello'), id('[UNK]')]);
  });

  it('gives each id its span in the text, a word that cannot be split all of it', () => {
    const { withOffsets } = compileAsciiWordPiece(tables());
    expect(withOffsets('  Unaffable,\tcats zz')).toEqual({
      ids: [id('un'), id('##aff'), id('##able'), id(','), id('cat'), id('##s'), id('[UNK]')],
      offsets: [
        [2, 4],
        [4, 7],
        [7, 11],
        [11, 12],
        [13, 16],
        [16, 17],
        [18, 20],
      ],
    });
    expect(withOffsets('unaffablex')).toEqual({ ids: [id('[UNK]')], offsets: [[0, 10]] });
    expect(withOffsets('café')).toBeUndefined();
  });

  it('judges the raw text, not its lowercase: the Kelvin sign lowercases to an ASCII k', () => {
    expect(tokenize('\u212Aelvin')).toBeUndefined();
  });
});
