// BERT's tokenizer.json pipeline (BertNormalizer → BertPreTokenizer → WordPiece) for the common
// case, text of printable ASCII, in one pass over its characters. On such text every step of the
// library's pipeline reduces to something simple: no control characters to clean, no accents to
// strip, no CJK characters to space out; tabs and line breaks are spaces; a word is a run of
// letters and digits and every other printable character stands alone. Text it cannot decide
// (anything else, or a character an added token starts with) gives undefined, and the caller asks
// the library. The tables come from the library's own parsed tokenizer (hf-tokenizer.ts), so both
// paths read one vocabulary; a test compares them on fixtures and generated text. In ASCII a
// character is a code point, so spans index the text as token-offsets.ts counts.

import { type CharSpan } from './token-offsets.js';

/** What the fast path reads of a WordPiece tokenizer. */
export interface WordPieceTables {
  /** BertNormalizer's `lowercase`. */
  readonly lowercase: boolean;
  /** The tokens WordPiece may match (the library's vocabulary, added tokens included). */
  readonly vocabulary: ReadonlyMap<string, number>;
  /** A matched token's id, as the library maps it (an added token's id first). */
  readonly idOf: (token: string) => number;
  /** The id a word gets when WordPiece cannot split it. */
  readonly unknownId: number;
  /** Prefix of word-continuation tokens ("##"). */
  readonly continuingSubwordPrefix: string;
  /** Longer words are unknown as a whole (WordPiece's `max_input_chars_per_word`). */
  readonly maxInputCharsPerWord: number;
  /** The first characters of the added tokens' contents (raw and normalized): text with one goes to the library. */
  readonly addedTokenStarts: readonly string[];
}

/** A character's class in the fast path (index: its ASCII code). */
const enum CharClass {
  /** Outside the fast path: the library decides the text. */
  Refused = 0,
  Space = 1,
  /** Printable, neither letter nor digit: a word of its own. */
  Punctuation = 2,
  /** Letter or digit: part of a word. */
  Word = 3,
}

const TAB = 9;
const LINE_FEED = 10;
const CARRIAGE_RETURN = 13;
const SPACE = 32;
const LAST_PRINTABLE = 126;
const ASCII_SIZE = 128;

/** Content ids of a text with each one's [start, end) span in it. */
export interface IdsWithSpans {
  ids: number[];
  offsets: CharSpan[];
}

/** A compiled fast path; undefined from either means the library must decide the text. */
export interface AsciiWordPiece {
  /** The content ids of `text`. */
  readonly ids: (text: string) => number[] | undefined;
  /** The same ids, each with its span in `text` (a word's [UNK] spans the whole word). */
  readonly withOffsets: (text: string) => IdsWithSpans | undefined;
}

function isLetterOrDigit(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function charClasses(addedTokenStarts: readonly string[]): Uint8Array {
  const classes = new Uint8Array(ASCII_SIZE);
  for (let code = SPACE + 1; code <= LAST_PRINTABLE; code += 1) {
    classes[code] = isLetterOrDigit(code) ? CharClass.Word : CharClass.Punctuation;
  }
  for (const code of [TAB, LINE_FEED, CARRIAGE_RETURN, SPACE]) classes[code] = CharClass.Space;
  // An added token may match the raw or the lowercased text: refuse both cases of its first letter.
  for (const start of addedTokenStarts) {
    for (const variant of [start, start.toLowerCase(), start.toUpperCase()]) {
      const code = variant.charCodeAt(0);
      if (code < ASCII_SIZE) classes[code] = CharClass.Refused;
    }
  }
  return classes;
}

/** Compiles the fast path over `tables`. */
export function compileAsciiWordPiece(tables: WordPieceTables): AsciiWordPiece {
  const classes = charClasses(tables.addedTokenStarts);
  let longestToken = 0;
  for (const token of tables.vocabulary.keys()) longestToken = Math.max(longestToken, token.length);
  const { vocabulary, idOf, unknownId, continuingSubwordPrefix: prefix, maxInputCharsPerWord } = tables;

  /**
   * Appends the WordPiece ids of `word`, found at `at` in the text (greedy longest match; unknown
   * as a whole when a piece fails), and their spans when `spans` is given.
   */
  const appendWord = (word: string, at: number, ids: number[], spans: CharSpan[] | undefined): void => {
    const first = ids.length;
    let start = 0;
    while (word.length <= maxInputCharsPerWord && start < word.length) {
      let end = Math.min(word.length, start + longestToken);
      let found: string | undefined;
      for (; end > start; end -= 1) {
        const piece = start === 0 ? word.slice(0, end) : prefix + word.slice(start, end);
        if (vocabulary.has(piece)) {
          found = piece;
          break;
        }
      }
      if (found === undefined) break;
      ids.push(idOf(found));
      spans?.push([at + start, at + end]);
      start = end;
    }
    if (start < word.length) {
      ids.length = first;
      ids.push(unknownId);
      if (spans) {
        spans.length = first;
        spans.push([at, at + word.length]);
      }
    }
  };

  const run = (text: string, spans: CharSpan[] | undefined): number[] | undefined => {
    const normalized = tables.lowercase ? text.toLowerCase() : text;
    const ids: number[] = [];
    let wordStart = -1;
    // Classes come from the raw text: lowercasing may turn a non-ASCII character into ASCII.
    for (let i = 0; i < text.length; i += 1) {
      const code = text.charCodeAt(i);
      const kind = code < ASCII_SIZE ? classes[code] : CharClass.Refused;
      if (kind === CharClass.Word) {
        if (wordStart < 0) wordStart = i;
        continue;
      }
      if (kind === CharClass.Refused) return undefined;
      if (wordStart >= 0) {
        appendWord(normalized.slice(wordStart, i), wordStart, ids, spans);
        wordStart = -1;
      }
      if (kind === CharClass.Punctuation) appendWord(normalized[i] as string, i, ids, spans);
    }
    if (wordStart >= 0) appendWord(normalized.slice(wordStart), wordStart, ids, spans);
    return ids;
  };

  return {
    ids: (text) => run(text, undefined),
    withOffsets: (text) => {
      const offsets: CharSpan[] = [];
      const ids = run(text, offsets);
      return ids === undefined ? undefined : { ids, offsets };
    },
  };
}
