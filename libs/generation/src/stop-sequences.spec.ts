import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StopMatcher } from './stop-sequences.js';

/** Feeds the pieces in order; returns everything emitted (flush included unless stopped) and whether it stopped. */
function run(
  stops: readonly string[],
  pieces: readonly string[],
): { text: string; stopped: boolean; emitted: string[] } {
  const matcher = new StopMatcher(stops);
  const emitted: string[] = [];
  for (const piece of pieces) {
    const { text, stopped } = matcher.push(piece);
    emitted.push(text);
    if (stopped) return { text: emitted.join(''), stopped: true, emitted };
  }
  emitted.push(matcher.flush());
  return { text: emitted.join(''), stopped: false, emitted };
}

/** Reference: the text before the stop string that is complete first (the longest on a tie). */
function cutAtFirstStop(text: string, stops: readonly string[]): { text: string; stopped: boolean } {
  for (let end = 1; end <= text.length; end += 1) {
    const found = stops
      .filter((stop) => stop.length > 0 && text.slice(0, end).endsWith(stop))
      .sort((a, b) => b.length - a.length)[0];
    if (found !== undefined) return { text: text.slice(0, end - found.length), stopped: true };
  }
  return { text, stopped: false };
}

/** Cuts `text` into pieces at the given (sorted, deduplicated) positions. */
function split(text: string, cuts: readonly number[]): string[] {
  const positions = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let at = 0;
  for (const position of positions) {
    pieces.push(text.slice(at, position));
    at = position;
  }
  pieces.push(text.slice(at));
  return pieces;
}

describe('StopMatcher', () => {
  it('passes everything through without stop strings', () => {
    const matcher = new StopMatcher([]);
    expect(matcher.push('Hello')).toEqual({ text: 'Hello', stopped: false });
    expect(matcher.push(', world')).toEqual({ text: ', world', stopped: false });
    expect(matcher.flush()).toBe('');
  });

  it('holds back a possible start of a stop string and releases it when it is not one', () => {
    const matcher = new StopMatcher(['\n\nUser:']);
    expect(matcher.push('Sure.\n')).toEqual({ text: 'Sure.', stopped: false });
    expect(matcher.push('\nUs')).toEqual({ text: '', stopped: false });
    expect(matcher.push('e it')).toEqual({ text: '\n\nUse it', stopped: false });
    expect(matcher.flush()).toBe('');
  });

  it('stops across pieces and emits the text before the stop string only', () => {
    const matcher = new StopMatcher(['END']);
    expect(matcher.push('one two E')).toEqual({ text: 'one two ', stopped: false });
    expect(matcher.push('N')).toEqual({ text: '', stopped: false });
    expect(matcher.push('D three')).toEqual({ text: '', stopped: true });
    expect(matcher.push('more')).toEqual({ text: '', stopped: true });
    expect(matcher.flush()).toBe('');
  });

  it('stops at the stop string found first, within one piece', () => {
    expect(run(['b', 'a'], ['xxaxb'])).toMatchObject({ text: 'xx', stopped: true });
    // "bc" is complete before "abcd" could be: a generator would have stopped there.
    expect(run(['abcd', 'bc'], ['abcd'])).toMatchObject({ text: 'a', stopped: true });
    expect(run(['abc', 'bc'], ['xabc'])).toMatchObject({ text: 'x', stopped: true });
  });

  it('hands the held-back text over at flush', () => {
    expect(run(['</s>'], ['answer </'])).toEqual({
      text: 'answer </',
      stopped: false,
      emitted: ['answer ', '</'],
    });
  });

  it('ignores empty stop strings', () => {
    expect(run(['', 'z'], ['abc'])).toMatchObject({ text: 'abc', stopped: false });
  });

  it('handles stop strings of multi-byte characters', () => {
    expect(run(['🛑'], ['go 🚦 go ', '🛑 no'])).toMatchObject({ text: 'go 🚦 go ', stopped: true });
  });

  it('cuts like the reference, whatever the pieces', () => {
    const alphabet = fc.constantFrom('a', 'b', 'c', ' ');
    const word = (min: number, max: number) =>
      fc.array(alphabet, { minLength: min, maxLength: max }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(
        word(0, 40),
        fc.array(word(1, 4), { maxLength: 3 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (text, stops, cuts) => {
          const result = run(stops, split(text, cuts));
          const expected = cutAtFirstStop(text, stops);
          expect({ text: result.text, stopped: result.stopped }).toEqual(expected);
          if (stops.length === 1) {
            const at = text.indexOf(stops[0]!);
            expect(result.text).toBe(at < 0 ? text : text.slice(0, at));
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never emits text that a later piece could turn into a stop string', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'b', 'x'), maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (text, cuts) => {
          const stops = ['ab', 'bba'];
          const { emitted } = run(stops, split(text, cuts));
          let sofar = '';
          for (const piece of emitted) {
            sofar += piece;
            expect(cutAtFirstStop(text, stops).text.startsWith(sofar)).toBe(true);
          }
        },
      ),
    );
  });
});
