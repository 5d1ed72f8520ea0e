import fc from 'fast-check';
import { decode, encode } from 'gpt-3-encoder';
import { describe, expect, it } from 'vitest';
import { IncrementalDecoder } from './text-stream.js';

// The real GPT-2 byte-level BPE (vocabulary and merges of the gpt-3-encoder package): its decode
// is lossy UTF-8, U+FFFD for the bytes of a character that are not all there yet.
const gpt2Decode = (ids: readonly number[]): string => decode([...ids]);
const VOCAB_SIZE = 50257;

/** True when `text` has no lone UTF-16 surrogate (a character cut in two). */
function wellFormed(text: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

/** Pushes `ids` in the given chunk sizes (cycled); returns every push's text and the flush. */
function stream(
  ids: readonly number[],
  chunkSizes: readonly number[] = [1],
): { pushes: string[]; rest: string } {
  const decoder = new IncrementalDecoder(gpt2Decode);
  const pushes: string[] = [];
  for (let at = 0, chunk = 0; at < ids.length; chunk += 1) {
    const size = Math.max(1, chunkSizes[chunk % chunkSizes.length]!);
    pushes.push(decoder.push(ids.slice(at, at + size)));
    at += size;
  }
  return { pushes, rest: decoder.flush() };
}

describe('IncrementalDecoder', () => {
  const samples = [
    'Hello 👋🏽 world',
    '你好，世界！我们在这里。',
    'naïve café — “quotes” ünïcödé',
    'emoji 🤖🧠🎉 family 👨‍👩‍👧‍👦 end',
    '日本語のテキスト🍣',
  ];

  it.each(samples)('never splits a multi-byte character of %s, token by token', (text) => {
    const ids = encode(text);
    // The sample really has characters whose bytes span several tokens.
    expect(ids.some((id) => gpt2Decode([id]).includes('\uFFFD'))).toBe(true);
    const { pushes, rest } = stream(ids);
    expect(pushes.some((piece) => piece === '')).toBe(true);
    for (const piece of pushes) {
      expect(piece).not.toContain('\uFFFD');
      expect(wellFormed(piece)).toBe(true);
    }
    expect(pushes.join('')).toBe(text);
    expect(rest).toBe('');
  });

  it('emits the held-back bytes once the character is complete', () => {
    const ids = encode('a🎉');
    const decoder = new IncrementalDecoder(gpt2Decode);
    const outputs = ids.map((id) => decoder.push([id]));
    expect(outputs.join('')).toBe('a🎉');
    expect(outputs.at(-1)).toContain('🎉');
    expect(outputs.slice(0, -1).join('')).toBe('a');
  });

  it('hands an unfinished character over at flush, as U+FFFD', () => {
    const ids = encode('ok 🎉');
    const cut = ids.slice(0, -1);
    const { pushes, rest } = stream(cut);
    expect(pushes.join('')).toBe('ok');
    expect(rest).toBe(gpt2Decode(cut).slice('ok'.length));
    expect(rest.endsWith('\uFFFD')).toBe(true);
  });

  it('answers nothing for an empty push and an empty flush', () => {
    const decoder = new IncrementalDecoder(gpt2Decode);
    expect(decoder.push([])).toBe('');
    expect(decoder.flush()).toBe('');
    expect(decoder.push(encode('hi'))).toBe('hi');
    expect(decoder.flush()).toBe('');
  });

  it('concatenates to the full decode for any ids and any chunking', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: VOCAB_SIZE - 1 }), { maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 5 }),
        (ids, chunkSizes) => {
          const { pushes, rest } = stream(ids, chunkSizes);
          expect(pushes.join('') + rest).toBe(gpt2Decode(ids));
          for (const piece of pushes) expect(piece.endsWith('\uFFFD')).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('concatenates to the full decode for byte tokens that build characters', () => {
    // Single-byte tokens of UTF-8 lead and continuation bytes, mixed with ASCII words.
    const byteTokens = Array.from(new Set(encode('é你🎉👋🏽ü€'))).filter((id) =>
      gpt2Decode([id]).includes('\uFFFD'),
    );
    const words = encode(' the cat sat');
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...byteTokens, ...words), { maxLength: 30 }), (ids) => {
        const { pushes, rest } = stream(ids);
        expect(pushes.join('') + rest).toBe(gpt2Decode(ids));
        for (const piece of pushes) expect(wellFormed(piece)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
