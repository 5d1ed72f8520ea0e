import { describe, expect, it } from 'vitest';
import { type StepFeeds, type StepOutputs } from './decode-batch.js';
import { type DecoderLayout } from './decoder-layout.js';
import { GenerationLoop, prefillGroups } from './generation-loop.js';
import { type GenerationAdd, type GenerationEvent } from './generation-protocol.js';

const layout: DecoderLayout = { layers: 1, heads: 1, headSize: 1, hasPositionIds: true };
const VOCAB = 50;

/** A fake decoder whose next token is always the last fed token + 1 (mod VOCAB). */
function countingStep(steps: number[][]) {
  return (feeds: StepFeeds): Promise<StepOutputs> => {
    const [rows = 0, tokens = 0] = feeds.input_ids!.dims;
    const width = feeds['past_key_values.0.key']!.dims[2]!;
    steps.push([rows, tokens]);
    const logits = new Float32Array(rows * tokens * VOCAB);
    for (let row = 0; row < rows; row++) {
      const last = Number(feeds.input_ids!.data[row * tokens + tokens - 1]);
      logits[(row * tokens + tokens - 1) * VOCAB + ((last + 1) % VOCAB)] = 1;
    }
    const present = { dims: [rows, 1, width + tokens, 1], data: new Float32Array(rows * (width + tokens)) };
    return Promise.resolve({
      logits: { dims: [rows, tokens, VOCAB], data: logits },
      'present.0.key': present,
      'present.0.value': { ...present, data: present.data.slice() },
    });
  };
}

function harness(maxSequences: number, now: () => number = Date.now) {
  const events: GenerationEvent[] = [];
  const steps: number[][] = [];
  const waiters: Array<() => void> = [];
  const loop = new GenerationLoop(
    layout,
    { maxSequences, maxCacheTokens: 10_000, maxQueue: 100 },
    countingStep(steps),
    (batch) => {
      events.push(...batch);
      waiters.splice(0).forEach((wake) => wake());
    },
    now,
  );
  const until = async (done: () => boolean): Promise<void> => {
    while (!done()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const tokensOf = (seq: number) =>
    events.flatMap((e) => (e.type === 'tokens' && e.seq === seq ? e.tokenIds : []));
  const endOf = (seq: number) =>
    events.find(
      (e) =>
        (e.type === 'tokens' && e.seq === seq && e.finishReason !== undefined) ||
        (e.type === 'ended' && e.seq === seq),
    );
  const add = (seq: number, promptIds: number[], maxNewTokens: number, extra: Partial<GenerationAdd> = {}) =>
    loop.handle({
      type: 'add',
      seq,
      promptIds,
      maxNewTokens,
      eosTokenIds: [],
      sampling: { doSample: false, temperature: 1, topK: 0, topP: 1 },
      enqueuedAtMs: now(),
      ...extra,
    });
  const decodeSizes = () =>
    events.flatMap((e) => (e.type === 'step' && e.phase === 'decode' ? [e.sequences] : []));
  return { loop, events, steps, until, tokensOf, endOf, add, decodeSizes };
}

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
    const h = harness(1, () => nowMs);
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
