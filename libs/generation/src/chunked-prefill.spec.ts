import { describe, expect, it } from 'vitest';
import {
  type PrefillChunking,
  type StagedPrompt,
  isChunkedPrompt,
  planPrefillSlices,
} from './chunked-prefill.js';

const CHUNK: PrefillChunking = { chunkTokens: 256 };

describe('isChunkedPrompt', () => {
  it('slices prompts longer than the chunk only, and none when chunking is off', () => {
    expect(isChunkedPrompt(256, CHUNK)).toBe(false);
    expect(isChunkedPrompt(257, CHUNK)).toBe(true);
    expect(isChunkedPrompt(4096, { chunkTokens: 0 })).toBe(false);
  });
});

describe('planPrefillSlices', () => {
  it('gives one staged prompt a chunk per turn, the last slice what is left', () => {
    expect(planPrefillSlices([{ id: 'a', done: 0, total: 600 }], CHUNK)).toEqual([
      { id: 'a', start: 0, end: 256, last: false },
    ]);
    expect(planPrefillSlices([{ id: 'a', done: 512, total: 600 }], CHUNK)).toEqual([
      { id: 'a', start: 512, end: 600, last: true },
    ]);
  });

  it('shares one chunk per turn among staged prompts, first staged first', () => {
    const staged: StagedPrompt<string>[] = [
      { id: 'a', done: 512, total: 600 },
      { id: 'b', done: 0, total: 1000 },
      { id: 'c', done: 0, total: 300 },
    ];
    expect(planPrefillSlices(staged, CHUNK)).toEqual([
      { id: 'a', start: 512, end: 600, last: true },
      { id: 'b', start: 0, end: 168, last: false },
    ]);
    expect(planPrefillSlices([], CHUNK)).toEqual([]);
  });

  /**
   * A loop on a fake clock: each turn prefills the planned slices (1 ms per prompt token) and then
   * runs one decode step of the running batch (5 ms). Returns the longest wait between two tokens
   * of a running sequence while a 2048-token prompt is prefilled.
   */
  function longestGapWhileArriving(chunking: PrefillChunking): { gapMs: number; turns: number } {
    let clock = 0;
    let lastToken = 0;
    let gapMs = 0;
    let turns = 0;
    const prompt: StagedPrompt<string> = { id: 'long', done: 0, total: 2048 };
    const whole = !isChunkedPrompt(prompt.total, chunking);
    while (prompt.done < prompt.total) {
      const slices = whole
        ? [{ id: 'long', start: 0, end: prompt.total, last: true }]
        : planPrefillSlices([prompt], chunking);
      for (const slice of slices) {
        clock += slice.end - slice.start;
        prompt.done = slice.end;
      }
      clock += 5; // the running sequence's decode step
      gapMs = Math.max(gapMs, clock - lastToken);
      lastToken = clock;
      turns += 1;
    }
    return { gapMs, turns };
  }

  it('bounds the inter-token wait of running sequences by one chunk while a long prompt arrives', () => {
    const chunked = longestGapWhileArriving(CHUNK);
    const whole = longestGapWhileArriving({ chunkTokens: 0 });
    expect(chunked).toEqual({ gapMs: 256 + 5, turns: 8 });
    expect(whole).toEqual({ gapMs: 2048 + 5, turns: 1 });
  });
});
