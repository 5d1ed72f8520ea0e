import { describe, expect, it } from 'vitest';
import { TEST_LAYOUT, harness } from '../../test/support/generation-loop-harness.js';
import { type EncodeImages } from './encoder-states.js';
import { type ImagePixels } from './generation-protocol.js';
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

  it('prefills a long prompt in slices between the decode steps of the running batch, then joins it', async () => {
    const h = harness(4, { chunking: { chunkTokens: 4 } });
    h.add(1, [40], 12, { pause: { afterTokens: 1, untilWaiting: 1 } });
    await h.until(() => h.tokensOf(1).length >= 1);
    const before = h.steps.length;
    const prompt = Array.from({ length: 10 }, (_, i) => i + 1);
    h.add(2, prompt, 2);
    await h.until(() => h.endOf(2) !== undefined);
    // Slices of 4, 4 and 2 prompt tokens, each followed by the running sequence's decode step.
    expect(h.steps.slice(before, before + 6)).toEqual([
      [1, 4],
      [1, 1],
      [1, 4],
      [1, 1],
      [1, 2],
      [2, 1],
    ]);
    const slices = h.feeds.slice(before, before + 5).filter((feeds) => feeds.input_ids!.dims[1]! > 1);
    expect(slices.map((feeds) => [...(feeds.position_ids!.data as BigInt64Array)].map(Number))).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9],
    ]);
    // The last slice sees the whole prompt: past 8 positions plus its own 2.
    expect(h.feeds[before + 4]!.attention_mask!.dims).toEqual([1, 10]);
    expect(h.tokensOf(2)).toEqual([11, 12]);
    await h.until(() => h.endOf(1) !== undefined);
    expect(h.tokensOf(1)).toHaveLength(12);
  });

  it('prefills a prompt no longer than the chunk whole, and every prompt whole without chunking', async () => {
    const chunked = harness(4, { chunking: { chunkTokens: 4 } });
    chunked.add(1, [1, 2, 3, 4], 1);
    await chunked.until(() => chunked.endOf(1) !== undefined);
    expect(chunked.steps).toEqual([[1, 4]]);
    const whole = harness(4);
    whole.add(
      1,
      Array.from({ length: 10 }, (_, i) => i),
      1,
    );
    await whole.until(() => whole.endOf(1) !== undefined);
    expect(whole.steps).toEqual([[1, 10]]);
  });

  it('ends a sequence cancelled between its slices without letting it join the batch', async () => {
    const h = harness(4, {
      chunking: { chunkTokens: 2 },
      before: (feeds) => {
        // Cancelled as its second slice runs: it leaves at the next turn.
        if (feeds.input_ids!.dims[1] === 2 && Number(feeds.position_ids!.data[0]) === 2) {
          h.loop.handle({ type: 'cancel', seq: 1 });
        }
      },
    });
    h.add(1, [1, 2, 3, 4, 5, 6], 3);
    await h.until(() => h.endOf(1) !== undefined);
    expect(h.endOf(1)).toMatchObject({ type: 'ended', reason: 'cancelled' });
    expect(h.tokensOf(1)).toEqual([]);
    expect(h.decodeSizes()).toEqual([]);
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

describe('GenerationLoop with an image encoder', () => {
  const layout = { ...TEST_LAYOUT, crossAttention: { sequence: 2, hidden: 1 } };
  /** A [1, 2, 2] image whose pixels are all `value`. */
  const image = (value: number): ImagePixels => ({ data: new Float32Array(4).fill(value), dims: [1, 2, 2] });
  /** A fake encoder: each image's two states are its first pixel; it records the dims of each run. */
  function fakeEncoder(runs: number[][]): EncodeImages {
    return ({ data, dims }) => {
      runs.push(dims);
      const rows = dims[0]!;
      const states = new Float32Array(rows * 2);
      for (let row = 0; row < rows; row++) states.fill(data[row * 4]!, row * 2, row * 2 + 2);
      return Promise.resolve({ dims: [rows, 2, 1], data: states });
    };
  }
  /** The first encoder state of each row a run was fed. */
  const imagesFed = (feeds: { encoder_hidden_states?: { data: ArrayLike<number | bigint> } }) =>
    Array.from(feeds.encoder_hidden_states!.data).filter((_, i) => i % 2 === 0);

  it('encodes the images of a prefill group in one encoder run, then prefills each row with its own states', async () => {
    const runs: number[][] = [];
    const h = harness(4, { layout, encode: fakeEncoder(runs) });
    [1, 2, 3].forEach((seq) => h.add(seq, [seq], 3, { pixels: image(seq * 10) }));
    await h.until(() => [1, 2, 3].every((seq) => h.endOf(seq) !== undefined));
    expect(runs).toEqual([[3, 1, 2, 2]]);
    expect(h.steps[0]).toEqual([3, 1]); // one prefill of the three
    expect(imagesFed(h.feeds[0]!)).toEqual([10, 20, 30]);
    expect(imagesFed(h.feeds.at(-1)!)).toEqual([10, 20, 30]);
    expect(h.tokensOf(2)).toEqual([3, 4, 5]);
    const phases = h.events.flatMap((e) => (e.type === 'step' ? [`${e.phase}:${e.sequences}`] : []));
    expect(phases.slice(0, 2)).toEqual(['encode:3', 'prefill:3']);
  });

  it('encodes a joiner alone when it joins a running batch, which then decodes every row with its states', async () => {
    const runs: number[][] = [];
    const h = harness(4, { layout, encode: fakeEncoder(runs) });
    h.add(1, [1], 5, { pixels: image(10), pause: { afterTokens: 2, untilWaiting: 1 } });
    await h.until(() => h.tokensOf(1).length >= 2);
    h.add(2, [2], 2, { pixels: image(20) });
    await h.until(() => h.endOf(1) !== undefined && h.endOf(2) !== undefined);
    expect(runs).toEqual([
      [1, 1, 2, 2],
      [1, 1, 2, 2],
    ]);
    expect(h.feeds.some((feeds) => imagesFed(feeds).join() === '10,20')).toBe(true);
    expect(h.tokensOf(1)).toEqual([2, 3, 4, 5, 6]);
  });

  it('retries a failed prefill one sequence at a time with the states already encoded', async () => {
    const runs: number[][] = [];
    const h = harness(4, {
      layout,
      encode: fakeEncoder(runs),
      // Any prefill run holding sequence 2's image (20) fails: 2 fails alone, 1 and 3 go on.
      before: (feeds) => {
        if (feeds.input_ids!.dims[1]! > 0 && feeds['past_key_values.0.key']!.dims[2] === 0)
          if (imagesFed(feeds).includes(20)) throw new Error('bad image');
      },
    });
    [1, 2, 3].forEach((seq) => h.add(seq, [seq], 2, { pixels: image(seq * 10) }));
    await h.until(() => [1, 2, 3].every((seq) => h.endOf(seq) !== undefined));
    expect(runs).toHaveLength(1);
    expect(h.endOf(2)).toMatchObject({
      type: 'ended',
      reason: 'failed',
      message: 'generation failed: bad image',
    });
    expect([h.tokensOf(1), h.tokensOf(3)]).toEqual([
      [2, 3],
      [4, 5],
    ]);
    expect(imagesFed(h.feeds.at(-1)!)).toEqual([10, 30]);
  });
});

describe('prefillGroups', () => {
  it('keeps rows × longest prompt within the budget, in order, a longer prompt alone', () => {
    const lengths = [100, 200, 50, 600, 10, 10];
    expect(prefillGroups(lengths, (n) => n, 512)).toEqual([[100, 200], [50], [600], [10, 10]]);
    expect(prefillGroups([], (n: number) => n, 512)).toEqual([]);
  });
});
