import { describe, expect, it } from 'vitest';
import { type StepFeeds } from './decode-batch.js';
import { TEST_LAYOUT, harness } from '../../test/support/generation-loop-harness.js';

/** Token ids fed in a run. */
const fed = (feeds: StepFeeds): number[] => [...(feeds.input_ids!.data as BigInt64Array)].map(Number);

/** Fails any run that feeds `poison`, as a Gather past the model's positions or vocabulary would. */
const poisoned =
  (poison: number) =>
  (feeds: StepFeeds): void => {
    if (fed(feeds).includes(poison)) throw new Error(`index ${poison} out of range`);
  };

describe('GenerationLoop faults and limits', () => {
  it('decodes a graph without position_ids one sequence at a time, never left-padded', async () => {
    const h = harness(4, { layout: { ...TEST_LAYOUT, hasPositionIds: false } });
    h.add(1, [3, 4, 5], 3);
    h.add(2, [10], 4);
    h.add(3, [20, 21], 2);
    await h.until(() => [1, 2, 3].every((seq) => h.endOf(seq) !== undefined));
    expect(h.tokensOf(1)).toEqual([6, 7, 8]);
    expect(h.tokensOf(2)).toEqual([11, 12, 13, 14]);
    expect(h.tokensOf(3)).toEqual([22, 23]);
    expect(h.steps.every(([rows]) => rows === 1)).toBe(true); // one row per prefill and per step
    expect(h.feeds.some((feeds) => 'position_ids' in feeds)).toBe(false);
    // Every run's mask is all ones: no padding the graph could miscount.
    for (const feeds of h.feeds) expect([...(feeds.attention_mask!.data as BigInt64Array)]).not.toContain(0n);
  });

  it('fails only the sequence whose decode step fails; the others keep decoding in the batch', async () => {
    const h = harness(4, { before: poisoned(40) });
    h.add(1, [3], 8);
    h.add(2, [37], 8); // generates 38, 39, 40: feeding 40 fails the step
    await h.until(() => h.endOf(1) !== undefined && h.endOf(2) !== undefined);
    expect(h.tokensOf(1)).toEqual([4, 5, 6, 7, 8, 9, 10, 11]);
    expect(h.tokensOf(2)).toEqual([38, 39, 40]);
    expect(h.endOf(2)).toMatchObject({ type: 'ended', reason: 'failed' });
    expect((h.endOf(2) as { message: string }).message).toMatch(/generation failed: index 40 out of range/);
    // After the failed step, sequence 1 ran alone once, then decoded on without sequence 2.
    expect(h.decodeSizes().slice(-5)).toEqual([1, 1, 1, 1, 1]);
  });

  it('fails only the joiner whose prefill fails; its prefill group and the running batch carry on', async () => {
    const h = harness(4, { before: poisoned(40) });
    h.add(1, [1], 6, { pause: { afterTokens: 1, untilWaiting: 2 } });
    await h.until(() => h.tokensOf(1).length === 1);
    h.add(2, [40, 41], 3);
    h.add(3, [30], 3);
    await h.until(() => [1, 2, 3].every((seq) => h.endOf(seq) !== undefined));
    expect(h.endOf(2)).toMatchObject({ type: 'ended', reason: 'failed' });
    expect(h.tokensOf(2)).toEqual([]);
    expect(h.tokensOf(3)).toEqual([31, 32, 33]);
    expect(h.tokensOf(1)).toEqual([2, 3, 4, 5, 6, 7]);
  });

  it('reports a joiner started before its prefill runs (the queue count must not wait for it)', async () => {
    const startedBeforePrefill: boolean[] = [];
    const h = harness(4, {
      before: (feeds, events) => {
        const [, tokens = 0] = feeds.input_ids!.dims;
        if (tokens > 1) startedBeforePrefill.push(events.some((e) => e.type === 'started' && e.seq === 1));
      },
    });
    h.add(1, [3, 4, 5], 2);
    await h.until(() => h.endOf(1) !== undefined);
    expect(startedBeforePrefill).toEqual([true]);
  });

  it('ends a sequence whose deadline passes while a test pause holds the loop', async () => {
    const h = harness(1);
    h.add(1, [1], 100, { pause: { afterTokens: 1, untilWaiting: 99 }, deadlineMs: Date.now() + 50 });
    await h.until(() => h.endOf(1) !== undefined);
    expect(h.endOf(1)).toMatchObject({ type: 'ended', reason: 'deadline' });
    // The loop is not held any more.
    h.add(2, [5], 2);
    await h.until(() => h.endOf(2) !== undefined);
    expect(h.tokensOf(2)).toEqual([6, 7]);
  });
});
