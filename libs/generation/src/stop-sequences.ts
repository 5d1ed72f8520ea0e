// Stop strings over streamed text: what may be emitted now, and where the text ends.

/**
 * Finds stop strings in text that arrives in pieces. The text ends before the first stop string
 * found while streaming, i.e. the one that is complete earliest (as a generator that stops at once
 * would see it; when several complete at the same character, the longest, which starts first).
 * The answer does not depend on how the text is cut into pieces. Empty stop strings are ignored.
 */
export class StopMatcher {
  private readonly stops: string[];
  private held = '';
  private stopped = false;

  constructor(stops: readonly string[]) {
    this.stops = stops.filter((stop) => stop.length > 0);
  }

  /** Feeds text; returns what may be emitted now (holding back a suffix that could start a stop string) and whether a stop string was found (then `text` ends before it and nothing more may be emitted). */
  push(text: string): { text: string; stopped: boolean } {
    if (this.stopped) return { text: '', stopped: true };
    const buffer = this.held + text;
    this.held = '';
    const cut = this.firstStop(buffer);
    if (cut !== undefined) {
      this.stopped = true;
      return { text: buffer.slice(0, cut), stopped: true };
    }
    const hold = this.heldLength(buffer);
    this.held = buffer.slice(buffer.length - hold);
    return { text: buffer.slice(0, buffer.length - hold), stopped: false };
  }

  /** The held-back text at the end of the sequence. */
  flush(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }

  /** Start of the stop string that ends first in `buffer` (the longest on a tie), if any. */
  private firstStop(buffer: string): number | undefined {
    let bestEnd = Infinity;
    let bestStart: number | undefined;
    for (const stop of this.stops) {
      const start = buffer.indexOf(stop);
      if (start < 0) continue;
      const end = start + stop.length;
      if (end < bestEnd || (end === bestEnd && bestStart !== undefined && start < bestStart)) {
        bestEnd = end;
        bestStart = start;
      }
    }
    return bestStart;
  }

  /** Length of the longest suffix of `buffer` that is a proper prefix of some stop string. */
  private heldLength(buffer: string): number {
    let longest = 0;
    for (const stop of this.stops) {
      for (let length = Math.min(stop.length - 1, buffer.length); length > longest; length -= 1) {
        if (buffer.endsWith(stop.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }
}
