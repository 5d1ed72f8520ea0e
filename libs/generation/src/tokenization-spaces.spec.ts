import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TokenizationSpacesCleaner, cleanUpTokenizationSpaces } from './tokenization-spaces.js';

/** The streamed clean-up of `pieces`, concatenated. */
function streamed(pieces: readonly string[]): string {
  const cleaner = new TokenizationSpacesCleaner();
  return pieces.map((piece) => cleaner.push(piece)).join('') + cleaner.flush();
}

describe('cleanUpTokenizationSpaces', () => {
  it('drops the space before punctuation and contractions, as the tokenizers do', () => {
    expect(cleanUpTokenizationSpaces("Hello , world . I do n't know ! He 's here ?")).toBe(
      "Hello, world. I don't know! He's here?",
    );
    expect(cleanUpTokenizationSpaces("we 're sure they 've gone , I 'm told ' yes '")).toBe(
      "we're sure they've gone, I'm told'yes '",
    );
    expect(cleanUpTokenizationSpaces('a  .')).toBe('a .');
  });
});

describe('TokenizationSpacesCleaner', () => {
  it('holds a space back until the next piece tells whether it goes', () => {
    const cleaner = new TokenizationSpacesCleaner();
    expect(cleaner.push('Hello ')).toBe('Hello');
    expect(cleaner.push(', wor')).toBe(', wor');
    expect(cleaner.push('ld ')).toBe('ld');
    expect(cleaner.flush()).toBe(' ');
  });

  it('keeps a straddling " \' " whole', () => {
    expect(streamed(['x ', "' ", 's'])).toBe("x's");
    expect(streamed(['x', " ' ", 's'])).toBe(cleanUpTokenizationSpaces("x ' s"));
  });

  it('keeps what a " \' " joins with it: the space a contraction takes, and the " n" of n\'t', () => {
    // " ' " becomes "'" and then " 're" takes the space before: the whole cleans to "'re".
    expect(cleanUpTokenizationSpaces("  ' re")).toBe("'re");
    expect(streamed(["  ' re"])).toBe("'re");
    expect(streamed(['ab ', " ' ", 're'])).toBe(cleanUpTokenizationSpaces("ab  ' re"));
    expect(streamed(['ab  ', "' ", 've'])).toBe("ab've");
    // And " n't" takes the " n" before it: " n ' t" cleans to "n't", in pieces too.
    expect(cleanUpTokenizationSpaces("do n ' t")).toBe("don't");
    expect(streamed(['do n', ' ', "' t"])).toBe("don't");
    expect(streamed([" '    "])).toBe(cleanUpTokenizationSpaces(" '    "));
  });

  it('gives, piece by piece, the clean-up of the whole text, however it is split', () => {
    const alphabet = fc.constantFrom(
      ' ',
      '.',
      '?',
      '!',
      ',',
      "'",
      'n',
      't',
      'm',
      's',
      'v',
      'e',
      'r',
      'a',
      'é',
    );
    const text = fc.array(alphabet, { maxLength: 40 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(text, fc.array(fc.nat(40), { maxLength: 8 }), (whole, cuts) => {
        const points = [...new Set(cuts.map((cut) => cut % (whole.length + 1)))].sort((a, b) => a - b);
        const pieces = [0, ...points].map((from, index) =>
          whole.slice(from, [...points, whole.length][index]),
        );
        expect(streamed(pieces)).toBe(cleanUpTokenizationSpaces(whole));
      }),
      { numRuns: 2000 },
    );
  });
});
