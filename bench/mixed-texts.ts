/**
 * The mixed-length workload: English texts of chosen token lengths from 8 to 256, built from the
 * words of the bench sentences and checked with the fixture's own tokenizer. Lengths are spread
 * geometrically (as many texts of 8–16 tokens as of 128–256, the skew of real traffic) and
 * shuffled with a fixed seed, so a FIFO batcher sees short and long texts side by side.
 */
import { type TextTokenizer } from '@modelgate/processing';
import { SENTENCES } from './sentences.js';

/** Shortest and longest text, in tokens with [CLS] and [SEP]. */
export const MIXED_MIN_TOKENS = 8;
export const MIXED_MAX_TOKENS = 256;
/** Distinct texts the load cycles through. */
export const MIXED_TEXT_COUNT = 64;

/** `count` token lengths from `min` to `max`, geometric, in a fixed shuffled order. */
export function mixedTokenLengths(
  count = MIXED_TEXT_COUNT,
  min = MIXED_MIN_TOKENS,
  max = MIXED_MAX_TOKENS,
): number[] {
  const lengths = Array.from({ length: count }, (_, i) =>
    Math.round(min * (max / min) ** (count > 1 ? i / (count - 1) : 0)),
  );
  // Fisher–Yates with a fixed LCG: the same order on every run.
  let state = 0x2545f491;
  for (let i = lengths.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [lengths[i], lengths[j]] = [lengths[j] ?? 0, lengths[i] ?? 0];
  }
  return lengths;
}

/** The words of the bench sentences, in order, without punctuation. */
function sentenceWords(): string[] {
  return SENTENCES.flatMap((sentence) => sentence.split(/\s+/))
    .map((word) => word.replace(/[^\p{L}\p{N}'-]/gu, ''))
    .filter((word) => word.length > 0);
}

/**
 * A text per length: words taken in order from a different place in the sentences for each text,
 * skipping a word whose pieces would overshoot, until the tokenizer counts exactly that length.
 * Throws when a text does not come out at its length (the tokenizer would then disagree with the
 * per-word counts, which BERT's whitespace-and-punctuation pre-tokenizer makes additive).
 */
export function buildTextsOfLengths(tokenizer: TextTokenizer, lengths: readonly number[]): string[] {
  const words = sentenceWords();
  const pieces = new Map(words.map((word) => [word, tokenizer.tokenize(word).length]));
  const special = tokenizer.specialTokenCount(false);
  return lengths.map((length, index) => {
    let remaining = length - special;
    const chosen: string[] = [];
    // A different starting word per text, so texts of similar length differ.
    for (let step = 0; remaining > 0 && step < words.length * 4; step++) {
      const word = words[(index * 37 + step) % words.length] ?? '';
      const count = pieces.get(word) ?? Infinity;
      if (count > remaining) continue;
      chosen.push(word);
      remaining -= count;
    }
    const text = chosen.join(' ');
    const counted = tokenizer.encode(text).ids.length;
    if (counted !== length)
      throw new Error(`mixed text ${index}: wanted ${length} tokens, the tokenizer counts ${counted}`);
    return text;
  });
}
