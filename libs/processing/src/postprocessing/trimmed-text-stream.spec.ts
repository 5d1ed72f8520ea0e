import { describe, expect, it } from 'vitest';
import { TrimmedTextStream } from './trimmed-text-stream.js';

/** The pieces a stream sends for `pieces`, flushed at the end. */
function sent(pieces: readonly string[]): string[] {
  const stream = new TrimmedTextStream();
  const out = pieces.map((piece) => stream.push(piece));
  out.push(stream.flush());
  return out;
}

describe('TrimmedTextStream', () => {
  it('never sends leading whitespace, and holds whitespace back until text follows it', () => {
    expect(sent([' a', ' cat', ' ', '\n', 'sits', ' '])).toEqual(['a', ' cat', '', '', ' \nsits', '', '']);
  });

  it('adds up to String.prototype.trim of the whole text, whatever the pieces', () => {
    const cases = [
      [' \u00a0', ' two', ' words ', '\u2028'],
      ['   '],
      ['\t', '', 'x'],
      ['a', '\u3000', 'b', ' \n '],
    ];
    for (const pieces of cases) expect(sent(pieces).join('')).toBe(pieces.join('').trim());
  });
});
