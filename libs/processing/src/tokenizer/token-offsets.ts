// Character offsets of content tokens, which the tokenizer library does not report: the library's
// own steps (added-token split → normalizer → pre-tokenizer → model) are replayed with the
// normalizer applied one character at a time, so every normalized character remembers the
// original character it came from. A character the normalizer removes (a combining mark once
// accents are stripped, U+200B, a control character) has no alignment, as in Hugging Face's Rust
// tokenizers (NormalizedString drops it): a token ends where its last kept character ends, so a
// removed character lies in no token unless kept characters of one token stand on both sides.
// Offsets count Unicode code points ("characters" as Python and Hugging Face's pipelines count
// them), end exclusive. Exact for WordPiece/BERT-style pipelines, whose pre-tokenizer returns
// pieces of the normalized text, and for byte-level BPE (GPT-2, RoBERTa), whose pieces are read
// back from their bytes; a token that cannot be placed gets no offsets.

import { byteLevelBytes, unitOfEachByte } from './byte-level.js';

const UTF8 = new TextDecoder();

/** A [start, end) span of code points in the original text. */
export type CharSpan = readonly [start: number, end: number];

/** The steps of a tokenizer.json pipeline, as the library runs them on content text. */
export interface TokenizerSteps {
  /** Sections of `text` in order: added tokens on their own, the text between them. */
  splitAddedTokens(text: string): string[];
  /** Normalized sections: added tokens that match after normalization, on their own. */
  splitNormalizedAddedTokens(normalized: string): string[];
  /** Whether a section is an added token (kept whole, never normalized). */
  isAddedToken(section: string): boolean;
  normalize(text: string): string;
  preTokenize(normalized: string): string[];
  /** The model's tokens for one pre-tokenized word. */
  wordTokens(word: string): string[];
  /** Prefix of continuation pieces (WordPiece "##"); undefined for other models. */
  continuingSubwordPrefix: string | undefined;
  unknownToken: string | undefined;
  /**
   * Set for a byte-level pre-tokenizer: words are written in GPT-2's byte alphabet (byte-level.ts).
   * `trimOffsets`: the post-processor's trim_offsets (spaces at a token's ends left out of its span).
   */
  byteLevel?: { trimOffsets: boolean };
}

/** Content tokens of a text, each with its span in the original text (undefined when it cannot be placed). */
export interface AlignedTokens {
  tokens: string[];
  offsets: (CharSpan | undefined)[];
}

/** Normalized text with, per UTF-16 unit, the original code-point span it came from. */
interface AlignedText {
  text: string;
  starts: number[];
  ends: number[];
}

function normalizeAligned(section: string, firstChar: number, steps: TokenizerSteps): AlignedText {
  let text = '';
  const starts: number[] = [];
  const ends: number[] = [];
  let char = firstChar;
  for (const original of section) {
    // A removed character (normalized to nothing) pushes no alignment and widens no neighbour's.
    const normalized = steps.normalize(original);
    for (let k = 0; k < normalized.length; k++) {
      starts.push(char);
      ends.push(char + 1);
    }
    text += normalized;
    char += 1;
  }
  return { text, starts, ends };
}

function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** UTF-16 length of the first `points` code points of `text`. */
function unitsOf(text: string, from: number, points: number): number {
  let units = 0;
  for (let p = 0; p < points && from + units < text.length; p++) {
    const code = text.codePointAt(from + units) ?? 0;
    units += code > 0xffff ? 2 : 1;
  }
  return units;
}

function alignWord(
  word: string,
  at: number | undefined,
  aligned: AlignedText,
  steps: TokenizerSteps,
): AlignedTokens {
  const tokens = steps.wordTokens(word);
  const offsets: (CharSpan | undefined)[] = [];
  const wordPoints = codePointLength(word);
  let used = 0; // UTF-16 units of `word` consumed
  tokens.forEach((token, i) => {
    if (at === undefined) {
      offsets.push(undefined);
      return;
    }
    const prefix = steps.continuingSubwordPrefix;
    const piece =
      i > 0 && prefix !== undefined && token.startsWith(prefix) ? token.slice(prefix.length) : token;
    const points = token === steps.unknownToken ? wordPoints : codePointLength(piece);
    const units = unitsOf(word, used, points);
    const first = at + used;
    const last = first + units - 1;
    const start = aligned.starts[first];
    const end = aligned.ends[last];
    offsets.push(units > 0 && start !== undefined && end !== undefined ? [start, end] : undefined);
    used = Math.min(word.length, used + units);
  });
  return { tokens, offsets };
}

function alignNormalizedSection(
  section: AlignedText,
  steps: TokenizerSteps,
  wholeNormalized: string,
): AlignedTokens {
  // The per-character normalization is what the library sees unless a rule looks at neighbours
  // (final sigma); then the library's text decides the tokens and offsets hold while lengths agree.
  const aligned = wholeNormalized === section.text ? section : { ...section, text: wholeNormalized };
  const placeable = aligned.text.length === section.text.length;
  const result: AlignedTokens = { tokens: [], offsets: [] };
  let from = 0;
  for (const piece of steps.splitNormalizedAddedTokens(aligned.text)) {
    const at = aligned.text.indexOf(piece, from);
    if (piece.length === 0) continue;
    if (at >= 0) from = at + piece.length;
    if (steps.isAddedToken(piece)) {
      const span = placeable && at >= 0 ? spanOf(aligned, at, piece.length) : undefined;
      result.tokens.push(piece);
      result.offsets.push(span);
      continue;
    }
    let wordFrom = at >= 0 ? at : 0;
    for (const word of steps.preTokenize(piece)) {
      if (steps.byteLevel) {
        const words = alignByteLevelWord(word, placeable && at >= 0 ? wordFrom : undefined, aligned, steps);
        result.tokens.push(...words.tokens);
        result.offsets.push(...words.offsets);
        wordFrom = words.next ?? wordFrom;
        continue;
      }
      const wordAt = aligned.text.indexOf(word, wordFrom);
      const found = placeable && at >= 0 && wordAt >= 0;
      if (found) wordFrom = wordAt + word.length;
      const words = alignWord(word, found ? wordAt : undefined, aligned, steps);
      result.tokens.push(...words.tokens);
      result.offsets.push(...words.offsets);
    }
  }
  return result;
}

/**
 * The tokens of a byte-level `word` and their spans: the word's bytes are read back as text and
 * must stand in the normalized text at `from` (a leading space the pre-tokenizer added, as
 * add_prefix_space does, stands nowhere and spans nothing); each token covers the characters
 * its bytes belong to (a token holding part of a character gets the whole character, as Hugging
 * Face's tokenizers do). `next`: where the next word is looked for.
 */
function alignByteLevelWord(
  word: string,
  from: number | undefined,
  aligned: AlignedText,
  steps: TokenizerSteps,
): AlignedTokens & { next?: number } {
  const tokens = steps.wordTokens(word);
  const bytes = byteLevelBytes(word);
  const text = bytes === undefined ? undefined : UTF8.decode(Uint8Array.from(bytes));
  // Byte-level words lie back to back: the next one starts where the last ended (a search further
  // on could match a later copy of the word, after a space the pre-tokenizer added to this one).
  let at = -1;
  let added = 0; // bytes of an added prefix space
  if (from !== undefined && text !== undefined) {
    if (aligned.text.startsWith(text, from)) at = from;
    else if (text.startsWith(' ') && aligned.text.startsWith(text.slice(1), from)) {
      at = from;
      added = 1;
    }
  }
  if (at < 0 || text === undefined || bytes === undefined)
    return { tokens, offsets: tokens.map(() => undefined) };
  const content = text.slice(added);
  const unitOf = unitOfEachByte(content);
  const offsets: (CharSpan | undefined)[] = [];
  let byte = 0;
  for (const token of tokens) {
    // One alphabet character per byte; the word's bytes before `added` are not in the text.
    let first = Math.max(byte, added) - added;
    byte += token.length;
    let last = byte - 1 - added;
    const untrimmedEnd = last;
    if (steps.byteLevel?.trimOffsets) {
      while (first <= last && bytes[first + added] === 0x20) first += 1;
      while (last >= first && bytes[last + added] === 0x20) last -= 1;
    }
    if (first > last) {
      // Nothing left (an added space, or spaces trimmed away): an empty span where the token ends.
      const end = untrimmedEnd >= 0 ? aligned.ends[at + (unitOf[untrimmedEnd] ?? 0)] : aligned.starts[at];
      offsets.push(end === undefined ? undefined : [end, end]);
      continue;
    }
    const start = aligned.starts[at + (unitOf[first] ?? 0)];
    const end = aligned.ends[at + (unitOf[last] ?? 0)];
    offsets.push(start === undefined || end === undefined ? undefined : [start, end]);
  }
  return { tokens, offsets, next: at + content.length };
}

function spanOf(aligned: AlignedText, at: number, length: number): CharSpan | undefined {
  const start = aligned.starts[at];
  const end = aligned.ends[at + length - 1];
  return start === undefined || end === undefined ? undefined : [start, end];
}

/**
 * The content tokens of `text` (no special tokens) as `steps` produce them, with each token's
 * code-point span in `text`.
 */
export function alignTokens(text: string, steps: TokenizerSteps): AlignedTokens {
  const result: AlignedTokens = { tokens: [], offsets: [] };
  let fromUnit = 0;
  for (const section of steps.splitAddedTokens(text)) {
    if (section.length === 0) continue;
    const atUnit = text.indexOf(section, fromUnit);
    const unit = atUnit >= 0 ? atUnit : fromUnit;
    fromUnit = unit + section.length;
    const firstChar = codePointLength(text.slice(0, unit));
    if (steps.isAddedToken(section)) {
      result.tokens.push(section);
      result.offsets.push(atUnit >= 0 ? [firstChar, firstChar + codePointLength(section)] : undefined);
      continue;
    }
    const aligned = normalizeAligned(section, firstChar, steps);
    const words = alignNormalizedSection(aligned, steps, steps.normalize(section));
    result.tokens.push(...words.tokens);
    result.offsets.push(...words.offsets);
  }
  return result;
}
