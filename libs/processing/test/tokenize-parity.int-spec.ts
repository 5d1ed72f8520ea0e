// What `POST /serve/:endpoint/tokenize` answers (tokenizeTexts) against transformers' tokenizer on
// the same fixture: ids and tokens exactly, with and without special tokens, single texts and
// pairs, truncated as /serve truncates (transformers.js cuts the end; the expected ids are cut from
// its untruncated output the way Hugging Face's Rust tokenizers do, as tokenizer-parity does).
// transformers.js reports no offsets, so each offset is checked against the text itself: the span
// of a token, normalized as BERT's normalizer does, spells the token (a whole word for [UNK]), spans
// never overlap, and every character the model sees lies in one.
import { dirname } from 'node:path';
import { AutoTokenizer, type PreTrainedTokenizer, env } from '@huggingface/transformers';
import { ensureFixture } from '@modelgate/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type TextTokenizer,
  type TokenizedText,
  loadTokenizerFromDir,
  longestFirstLengths,
  tokenizeTexts,
} from '../src/index.js';

const TEXTS = [
  '',
  '   ',
  'hello world',
  "Héllo, wörld! The naïve café's zxqvbn-ish blueberries.",
  'Ångström façade coöperate résumé — ÀÉÎÕÜ İstanbul ΣΊΣΥΦΟΣ',
  'CJK: 我爱自然语言处理 and かな and 한국어',
  'emoji 🤗🚀 and symbols ™ © ½ 👩‍👩‍👧‍👦',
  'control\u0000chars\u0007and\ttabs\nnewlines\u200b\ufeff\r\n',
  `a ${'x'.repeat(120)} word longer than max_input_chars_per_word`,
  'literal [CLS] and [SEP] in the text',
];
// Far past the model's 512 tokens.
const LONG = 'blueberries and naïve cafés 🤗 '.repeat(200);
const PAIRS: [string, string][] = [
  ['Is this a question?', 'Yes, 这是一个答案 🤗.'],
  ['naïve', ''],
  ['The quick brown fox. '.repeat(150), 'jumps over the lazy dog'],
];
const CLS = 101;
const SEP = 102;

env.allowRemoteModels = false;
env.allowLocalModels = true;

/** BERT's normalizer (uncased) on a span: control characters out, lower case, accents stripped. */
function normalizeSpan(span: string): string {
  return [...span]
    .filter((char) => !/^[\p{Cc}\p{Cf}\p{Co}\p{Cs}\ufffd]$/u.test(char) || /^[\t\n\r]$/.test(char))
    .join('')
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{Mn}/gu, '');
}

/** Code points of `text` from `start` to `end`. */
function slice(text: string, [start, end]: readonly [number, number]): string {
  return [...text].slice(start, end).join('');
}

function expectOffsetsFit(tokenized: TokenizedText, sources: readonly string[], wholeText: boolean): void {
  const lastSpan: (readonly [number, number] | undefined)[] = [undefined, undefined];
  tokenized.tokens.forEach((token, i) => {
    const sequence = tokenized.sequence_ids[i];
    const offsets = tokenized.offsets[i];
    if (sequence === null || sequence === undefined) {
      expect(offsets).toBeNull();
      return;
    }
    expect(offsets, `offsets of ${token}`).toBeDefined();
    if (!offsets) return;
    const raw = slice(sources[sequence] ?? '', offsets);
    const span = normalizeSpan(raw);
    const piece = token.replace(/^##/, '');
    if (token === '[UNK]') expect(span).toMatch(/^\S+$/u);
    else if (/^\[[A-Z]+\]$/.test(token))
      expect(raw).toBe(token); // an added token written in the text
    // A character that decomposes (Hangul into jamo) may yield several pieces, each spanning it.
    else if ([...raw].length === 1 && span !== piece) expect(span).toContain(piece);
    else expect(span).toBe(piece);
    // Spans follow each other without overlap, except pieces of one decomposed character.
    const previous = lastSpan[sequence];
    if (previous?.[0] !== offsets[0] || previous[1] !== offsets[1]) {
      expect(offsets[0]).toBeGreaterThanOrEqual(previous?.[1] ?? 0);
    }
    lastSpan[sequence] = offsets;
  });
  if (!wholeText) return;
  sources.forEach((source, sequence) => {
    [...source].forEach((char, c) => {
      if (normalizeSpan(char).trim() === '') return;
      const covered = tokenized.offsets.some(
        (span, i) => tokenized.sequence_ids[i] === sequence && span !== null && span[0] <= c && c < span[1],
      );
      expect(covered, `character ${c} (${JSON.stringify(char)}) lies in a token`).toBe(true);
    });
  });
}

describe('tokenize on tiny-bert-sst2', () => {
  let ours: TextTokenizer;
  let theirs: PreTrainedTokenizer;

  beforeAll(async () => {
    const dir = await ensureFixture('tiny-bert-sst2');
    env.localModelPath = dirname(dir);
    ours = await loadTokenizerFromDir(dir);
    theirs = await AutoTokenizer.from_pretrained('tiny-bert-sst2', { local_files_only: true });
  });

  function tokenize(text: string, pair: string | undefined, addSpecialTokens: boolean): TokenizedText {
    const [tokenized] = tokenizeTexts({
      texts: [text],
      pairs: pair === undefined ? undefined : [pair],
      tokenizer: ours,
      addSpecialTokens,
      truncation: true,
      batch: false,
    });
    if (!tokenized) throw new Error('no answer');
    return tokenized;
  }

  it.each(TEXTS)('gives transformers’ ids and tokens, with offsets that fit, for %j', (text) => {
    for (const addSpecialTokens of [true, false]) {
      const tokenized = tokenize(text, undefined, addSpecialTokens);
      const reference = theirs(text, { add_special_tokens: addSpecialTokens, return_tensor: false });
      expect(tokenized.ids).toEqual(reference.input_ids);
      const tokens = theirs.tokenize(text, { add_special_tokens: addSpecialTokens });
      expect(tokenized.tokens).toEqual(tokens);
      expectOffsetsFit(tokenized, [text], true);
    }
  });

  it.each(PAIRS)('gives transformers’ ids and tokens for the pair %j / %j', (text, pair) => {
    const tokenized = tokenize(text, pair, true);
    const content = (value: string): number[] =>
      theirs(value, { return_tensor: false }).input_ids.slice(1, -1);
    const [first, second] = [content(text), content(pair)];
    const [keepFirst, keepSecond] = longestFirstLengths(first.length, second.length, 512 - 3);
    const expected = [CLS, ...first.slice(0, keepFirst), SEP, ...second.slice(0, keepSecond), SEP];
    expect(tokenized.ids).toEqual(expected);
    // transformers.js drops an empty second text (`text_pair || null`); Rust's tokenizers keep its [SEP].
    if (pair !== '' && first.length + second.length + 3 <= 512) {
      expect(tokenized.ids).toEqual(theirs(text, { text_pair: pair, return_tensor: false }).input_ids);
      expect(tokenized.tokens).toEqual(theirs.tokenize(text, { pair, add_special_tokens: true }));
    }
    expect(tokenized.sequence_ids).toEqual([
      null,
      ...new Array<number>(keepFirst).fill(0),
      null,
      ...new Array<number>(keepSecond).fill(1),
      null,
    ]);
    expectOffsetsFit(tokenized, [text, pair], expected.length < 512);
  });

  it('truncates a text past the model maximum to 512 tokens, as /serve does', () => {
    const full = theirs(LONG, { return_tensor: false }).input_ids;
    expect(full.length).toBeGreaterThan(1000);
    const tokenized = tokenize(LONG, undefined, true);
    expect(tokenized.ids).toEqual([...full.slice(0, 511), SEP]);
    expect(tokenized.tokens).toEqual(
      theirs.tokenize(LONG, { add_special_tokens: true }).slice(0, 511).concat('[SEP]'),
    );
    expectOffsetsFit(tokenized, [LONG], false);
    const bare = tokenize(LONG, undefined, false);
    expect(bare.ids).toEqual(full.slice(1, 513));
  });

  it('places accents, CJK, emoji and removed characters at their code points', () => {
    const at = (text: string) => {
      const tokenized = tokenize(text, undefined, false);
      return tokenized.tokens.map((token, i) => [token, tokenized.offsets[i]]);
    };
    expect(at('Héllo, wörld!')).toEqual([
      ['hello', [0, 5]],
      [',', [5, 6]],
      ['world', [7, 12]],
      ['!', [12, 13]],
    ]);
    // One code point each, whatever their UTF-16 length: 🤗 is two units, one character.
    expect(at('🤗 ok 我中文')).toEqual([
      ['[UNK]', [0, 1]],
      ['ok', [2, 4]],
      ['我', [5, 6]],
      ['中', [6, 7]],
      ['文', [7, 8]],
    ]);
    // A removed character lies in no token after it (Rust tokenizers' alignment), and inside the
    // one whose kept characters surround it.
    expect(at('ab\u0007 cafe\u0301s')).toEqual([
      ['ab', [0, 2]],
      ['cafes', [4, 10]],
    ]);
  });
});
