import { describe, expect, it } from 'vitest';
import { NO_PENALTIES, applyPenalties, bannedNgramTokens, hasPenalties } from './penalties.js';

const history = (promptIds: number[], generatedIds: number[], eos: number[] = []) => ({
  promptIds,
  generatedIds,
  eosIds: new Set(eos),
});

describe('applyPenalties', () => {
  it('changes nothing with every processor off', () => {
    const row = Float32Array.of(1, -2, 3, 0.5);
    applyPenalties(row, NO_PENALTIES, history([0, 1], [2, 2]));
    expect([...row]).toEqual([1, -2, 3, 0.5]);
    expect(hasPenalties(NO_PENALTIES)).toBe(false);
  });

  it('repetition_penalty divides positive and multiplies negative logits of every token seen, once each', () => {
    const row = Float32Array.of(2, -2, 3, 4);
    applyPenalties(row, { ...NO_PENALTIES, repetitionPenalty: 2 }, history([0, 1], [1, 1]));
    expect([...row]).toEqual([1, -4, 3, 4]);
  });

  it('frequency and presence penalties read the generated tokens only, OpenAI’s formula', () => {
    const row = Float32Array.of(1, 1, 1, 1);
    applyPenalties(
      row,
      { ...NO_PENALTIES, frequencyPenalty: 0.5, presencePenalty: 0.25 },
      history([3], [0, 0, 1]),
    );
    // token 0: 1 - 0.5 × 2 - 0.25; token 1: 1 - 0.5 - 0.25; token 3 is in the prompt only.
    expect([...row]).toEqual([-0.25, 0.25, 1, 1]);
  });

  it('a negative presence penalty encourages repeats', () => {
    const row = Float32Array.of(0, 0);
    applyPenalties(row, { ...NO_PENALTIES, presencePenalty: -1 }, history([], [1]));
    expect([...row]).toEqual([0, 1]);
  });

  it('no_repeat_ngram_size bans the tokens that would repeat an n-gram of prompt and text', () => {
    const row = Float32Array.of(0, 0, 0, 0);
    // 0 1 2 ... 0 1 → 2 would repeat the 3-gram (0, 1, 2).
    applyPenalties(row, { ...NO_PENALTIES, noRepeatNgramSize: 3 }, history([0, 1, 2], [0, 1]));
    expect([...row]).toEqual([0, 0, -Infinity, 0]);
  });

  it('min_new_tokens bans every eos id until that many tokens were generated', () => {
    const row = Float32Array.of(5, 5, 5);
    applyPenalties(row, { ...NO_PENALTIES, minNewTokens: 2 }, history([0], [1], [0, 2]));
    expect([...row]).toEqual([-Infinity, 5, -Infinity]);
    const after = Float32Array.of(5, 5, 5);
    applyPenalties(after, { ...NO_PENALTIES, minNewTokens: 2 }, history([0], [1, 1], [0, 2]));
    expect([...after]).toEqual([5, 5, 5]);
  });
});

describe('bannedNgramTokens', () => {
  it('bans every token that followed an earlier occurrence of the last n - 1 tokens', () => {
    expect(bannedNgramTokens([5, 6, 5, 7, 5], 2)).toEqual(new Set([6, 7]));
    expect(bannedNgramTokens([5, 5, 5], 1)).toEqual(new Set([5]));
    expect(bannedNgramTokens([1, 2], 4)).toEqual(new Set());
    expect(bannedNgramTokens([1, 2, 3], 3)).toEqual(new Set());
  });
});
