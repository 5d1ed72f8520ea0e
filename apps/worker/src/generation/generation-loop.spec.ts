import { describe, expect, it } from 'vitest';
import { harness } from '../../test/support/generation-loop-harness.js';
import { prefillGroups } from './prefill-groups.js';

describe('GenerationLoop', () => {
  it('streams one token per step up to max_new_tokens, then finishes with length', async () => {
    const h = harness(4);
    h.add(1, [3, 4], 4);
    await h.until(() => h.endOf(1) !== undefined);
    expect(h.tokensOf(1)).toEqual([5, 6, 7, 8]);
    expect(h.endOf(1)).toMatchObject({ type: 'tokens', finishReason: 'length' });
    expect(h.steps).toEqual([
      [1, 2],
      [1, 1],
      [1, 1],
      [1, 1],
    ]); // one prefill, three decode steps
    expect(h.events[0]).toMatchObject({ type: 'started', seq: 1 });
  });

  it('finishes with eos when an eos id is generated, reporting it', async () => {
    const h = harness(4);
    h.add(1, [3], 10, { eosTokenIds: [6] });
    await h.until(() => h.endOf(1) !== undefined);
    expect(h.tokensOf(1)).toEqual([4, 5, 6]);
    expect(h.endOf(1)).toMatchObject({ finishReason: 'eos' });
  });

  it('lets a sequence added mid-flight join the running batch at the next step', async () => {
    const h = harness(4);
    h.add(1, [10], 6, { pause: { afterTokens: 2, untilWaiting: 1 } });
    await h.until(() => h.tokensOf(1).length >= 2);
    h.add(2, [20, 21, 22], 3);
    await h.until(() => h.endOf(1) !== undefined && h.endOf(2) !== undefined);
    expect(h.tokensOf(1)).toEqual([11, 12, 13, 14, 15, 16]);
    expect(h.tokensOf(2)).toEqual([23, 24, 25]);
    expect(h.decodeSizes().filter((size) => size === 2)).toHaveLength(2); // sequence 2's two decode steps
  });

  it('takes a cancelled sequence out at the next step and gives its slot to a waiting one', async () => {
    const h = harness(1);
    h.add(1, [1], 100, { pause: { afterTokens: 1, untilWaiting: 99 } });
    await h.until(() => h.tokensOf(1).length === 1);
    h.add(2, [30], 2);
    h.loop.handle({ type: 'cancel', seq: 1 });
    await h.until(() => h.endOf(2) !== undefined);
    expect(h.endOf(1)).toMatchObject({ type: 'ended', reason: 'cancelled' });
    expect(h.tokensOf(1)).toEqual([2]);
    expect(h.tokensOf(2)).toEqual([31, 32]);
    expect(Math.max(...h.decodeSizes())).toBe(1);
  });

  it('ends a waiting sequence whose deadline passed without starting it', async () => {
    let nowMs = 1_000;
    const h = harness(1, { now: () => nowMs });
    h.add(1, [1], 100, { pause: { afterTokens: 1, untilWaiting: 99 } });
    await h.until(() => h.tokensOf(1).length === 1);
    h.add(2, [30], 2, { deadlineMs: 1_500 });
    nowMs = 2_000;
    h.loop.handle({ type: 'cancel', seq: 1 });
    await h.until(() => h.endOf(2) !== undefined);
    expect(h.endOf(2)).toMatchObject({ type: 'ended', reason: 'deadline' });
    expect(h.events.some((e) => e.type === 'started' && e.seq === 2)).toBe(false);
  });

  it('stops holding a test pause once the model drains', async () => {
    const h = harness(1);
    h.add(1, [1], 3, { pause: { afterTokens: 1, untilWaiting: 99 } });
    await h.until(() => h.tokensOf(1).length === 1);
    h.loop.handle({ type: 'resume' });
    await h.until(() => h.endOf(1) !== undefined);
    expect(h.tokensOf(1)).toEqual([2, 3, 4]);
  });
});

describe('prefillGroups', () => {
  it('keeps rows × longest prompt within the budget, in order, a longer prompt alone', () => {
    const lengths = [100, 200, 50, 600, 10, 10];
    expect(prefillGroups(lengths, (n) => n, 512)).toEqual([[100, 200], [50], [600], [10, 10]]);
    expect(prefillGroups([], (n: number) => n, 512)).toEqual([]);
  });
});
