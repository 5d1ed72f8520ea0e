import { describe, expect, it } from 'vitest';
import { gatherCache } from './cache-block.js';
import { DecodeBatch, type StepFeeds, type StepOutputs } from './decode-batch.js';
import { type DecoderLayout } from './decoder-layout.js';

const plain: DecoderLayout = {
  layers: 2,
  heads: 2,
  headSize: 2,
  hasPositionIds: true,
  useCacheBranch: false,
};
const layout = plain;

/**
 * A fake decoder: each cache position holds (token, position) in every head and layer, and the
 * logits of a row's last position name (through `histories`) the (token, position) pairs that row
 * sees: its unmasked past plus its own tokens. A feed that misaligns the mask, the positions or
 * the cache shows up as a wrong history.
 */
function fakeDecoder(layout: DecoderLayout = plain) {
  const histories: string[] = [];
  const feedsSeen: StepFeeds[] = [];
  const outputsSeen: StepOutputs[] = [];
  const runStep = (feeds: StepFeeds): Promise<StepOutputs> => {
    feedsSeen.push(feeds);
    const [rows = 0, tokens = 0] = feeds.input_ids!.dims;
    const past = feeds['past_key_values.0.key']!;
    const width = past.dims[2]!;
    expect(feeds.attention_mask!.dims).toEqual([rows, width + tokens]);
    const outWidth = width + tokens;
    const present = new Float32Array(rows * layout.heads * outWidth * layout.headSize);
    const logits = new Float32Array(rows * tokens * 1);
    for (let row = 0; row < rows; row++) {
      const seen: Array<[number, number]> = [];
      for (let p = 0; p < outWidth; p++) {
        let pair: [number, number];
        if (p < width) {
          const at = (row * layout.heads * width + p) * layout.headSize;
          pair = [past.data[at] as number, past.data[at + 1] as number];
        } else {
          const i = row * tokens + p - width;
          pair = [Number(feeds.input_ids!.data[i]), Number(feeds.position_ids!.data[i])];
        }
        for (let h = 0; h < layout.heads; h++) {
          const at = ((row * layout.heads + h) * outWidth + p) * layout.headSize;
          present.set(pair, at);
        }
        if (feeds.attention_mask!.data[row * outWidth + p] === 1n) seen.push(pair);
      }
      histories.push(JSON.stringify(seen));
      logits[row * tokens + tokens - 1] = histories.length - 1;
    }
    const outputs: StepOutputs = { logits: { dims: [rows, tokens, 1], data: logits } };
    for (let layer = 0; layer < layout.layers; layer++) {
      for (const part of ['key', 'value']) {
        outputs[`present.${layer}.${part}`] = {
          dims: [rows, layout.heads, outWidth, layout.headSize],
          data: layer === 0 && part === 'key' ? present : present.slice(),
        };
      }
    }
    outputsSeen.push(outputs);
    return Promise.resolve(outputs);
  };
  /** The (token, position) pairs the step's logits for `id` saw. */
  const seenBy = (result: { logits: Float32Array; offsets: Map<string, number> }, id: string) =>
    JSON.parse(histories[result.logits[result.offsets.get(id)!]!]!) as Array<[number, number]>;
  return { runStep, seenBy, feedsSeen, outputsSeen };
}

const pairs = (tokens: number[]) => tokens.map((token, position) => [token, position]);

describe('DecodeBatch', () => {
  it('prefills prompts of different lengths together, left-padded, each seeing only its own tokens', async () => {
    const fake = fakeDecoder();
    const batch = new DecodeBatch<string>(layout, fake.runStep);
    const result = await batch.prefill([
      { id: 'a', promptIds: [5, 6, 7] },
      { id: 'b', promptIds: [9] },
    ]);
    expect(fake.seenBy(result, 'a')).toEqual(pairs([5, 6, 7]));
    expect(fake.seenBy(result, 'b')).toEqual(pairs([9]));
    expect(batch.ids).toEqual(['a', 'b']);
    expect(batch.width).toBe(3);
    expect([batch.lengthOf('a'), batch.lengthOf('b')]).toEqual([3, 1]);
  });

  it('decodes sequences of different lengths in one step with position_ids at each length', async () => {
    const fake = fakeDecoder();
    const batch = new DecodeBatch<string>(layout, fake.runStep);
    await batch.prefill([
      { id: 'a', promptIds: [5, 6, 7] },
      { id: 'b', promptIds: [9] },
    ]);
    let result = await batch.step(
      new Map([
        ['a', 20],
        ['b', 30],
      ]),
    );
    expect(fake.seenBy(result, 'a')).toEqual(pairs([5, 6, 7, 20]));
    expect(fake.seenBy(result, 'b')).toEqual(pairs([9, 30]));
    result = await batch.step(
      new Map([
        ['a', 21],
        ['b', 31],
      ]),
    );
    expect(fake.seenBy(result, 'a')).toEqual(pairs([5, 6, 7, 20, 21]));
    expect(fake.seenBy(result, 'b')).toEqual(pairs([9, 30, 31]));
    expect(Number(fake.feedsSeen.at(-1)!.position_ids!.data[1])).toBe(2);
  });

  it('extends a lone prompt slice by slice, each seeing the slices before it, then decodes on', async () => {
    const fake = fakeDecoder();
    const batch = new DecodeBatch<string>(layout, fake.runStep);
    await batch.prefill([{ id: 'a', promptIds: [5, 6] }]);
    let result = await batch.extend([7, 8, 9]);
    expect(fake.seenBy(result, 'a')).toEqual(pairs([5, 6, 7, 8, 9]));
    expect(fake.feedsSeen.at(-1)!.input_ids!.dims).toEqual([1, 3]);
    result = await batch.extend([10]);
    expect(fake.seenBy(result, 'a')).toEqual(pairs([5, 6, 7, 8, 9, 10]));
    expect([batch.width, batch.lengthOf('a')]).toEqual([6, 6]);
    result = await batch.step(new Map([['a', 20]]));
    expect(fake.seenBy(result, 'a')).toEqual(pairs([5, 6, 7, 8, 9, 10, 20]));
  });

  it('extends only a batch of one sequence', async () => {
    const fake = fakeDecoder();
    const batch = new DecodeBatch<string>(layout, fake.runStep);
    await expect(batch.extend([1])).rejects.toThrow('a batch of one sequence');
    await batch.prefill([
      { id: 'a', promptIds: [1] },
      { id: 'b', promptIds: [2] },
    ]);
    await expect(batch.extend([3])).rejects.toThrow('a batch of one sequence');
  });

  it('feeds the last present as the next past while the membership does not change', async () => {
    const fake = fakeDecoder();
    const batch = new DecodeBatch<string>(layout, fake.runStep);
    await batch.prefill([{ id: 'a', promptIds: [1, 2] }]);
    await batch.step(new Map([['a', 3]]));
    await batch.step(new Map([['a', 4]]));
    expect(fake.feedsSeen[2]!['past_key_values.1.value']!.data).toBe(
      fake.outputsSeen[1]!['present.1.value']!.data,
    );
    expect(fake.feedsSeen[1]!['past_key_values.1.value']!.data).toBe(
      fake.outputsSeen[0]!['present.1.value']!.data,
    );
  });

  it('merges a prefilled joiner into a running batch between steps, padding the narrower side', async () => {
    const fake = fakeDecoder();
    const batch = new DecodeBatch<string>(layout, fake.runStep);
    await batch.prefill([{ id: 'a', promptIds: [1] }]);
    await batch.step(new Map([['a', 2]]));
    const joined = await batch.prefill([{ id: 'b', promptIds: [7, 8, 9, 10] }]);
    expect(fake.seenBy(joined, 'b')).toEqual(pairs([7, 8, 9, 10]));
    expect(batch.ids).toEqual(['a', 'b']);
    expect(batch.width).toBe(4);
    const result = await batch.step(
      new Map([
        ['a', 3],
        ['b', 11],
      ]),
    );
    expect(fake.seenBy(result, 'a')).toEqual(pairs([1, 2, 3]));
    expect(fake.seenBy(result, 'b')).toEqual(pairs([7, 8, 9, 10, 11]));
  });

  it('cuts leaving sequences out and shrinks the cache to the longest remaining one', async () => {
    const fake = fakeDecoder();
    const batch = new DecodeBatch<string>(layout, fake.runStep);
    await batch.prefill([
      { id: 'long', promptIds: [1, 2, 3, 4, 5] },
      { id: 'b', promptIds: [6] },
      { id: 'c', promptIds: [7, 8] },
    ]);
    batch.remove(['long']);
    expect(batch.ids).toEqual(['b', 'c']);
    expect(batch.width).toBe(2);
    const result = await batch.step(
      new Map([
        ['b', 60],
        ['c', 70],
      ]),
    );
    expect(fake.seenBy(result, 'b')).toEqual(pairs([6, 60]));
    expect(fake.seenBy(result, 'c')).toEqual(pairs([7, 8, 70]));
    batch.remove(['b', 'c']);
    expect(batch.size).toBe(0);
    expect(batch.width).toBe(0);
  });

  it('detaches a sequence with its cache row to run alone, and absorbs it back after the others', async () => {
    const fake = fakeDecoder();
    const batch = new DecodeBatch<string>(layout, fake.runStep);
    await batch.prefill([
      { id: 'a', promptIds: [1, 2, 3] },
      { id: 'b', promptIds: [6] },
    ]);
    const alone = batch.detach('a');
    expect([batch.ids, alone.ids]).toEqual([['b'], ['a']]);
    expect([batch.width, alone.width]).toEqual([1, 3]);
    const result = await alone.step(new Map([['a', 4]]));
    expect(fake.seenBy(result, 'a')).toEqual(pairs([1, 2, 3, 4]));
    batch.absorb(alone);
    expect([batch.ids, alone.size]).toEqual([['b', 'a'], 0]);
    const both = await batch.step(
      new Map([
        ['a', 5],
        ['b', 7],
      ]),
    );
    expect(fake.seenBy(both, 'a')).toEqual(pairs([1, 2, 3, 4, 5]));
    expect(fake.seenBy(both, 'b')).toEqual(pairs([6, 7]));
  });

  it("feeds a merged decoder's use_cache_branch: false on a prefill (empty past), true on decode steps", async () => {
    const merged: DecoderLayout = { ...plain, useCacheBranch: true };
    const fake = fakeDecoder(merged);
    const batch = new DecodeBatch<string>(merged, fake.runStep);
    await batch.prefill([{ id: 'a', promptIds: [1, 2] }]);
    await batch.step(new Map([['a', 3]]));
    await batch.prefill([{ id: 'b', promptIds: [4] }]);
    const both = await batch.step(
      new Map([
        ['a', 5],
        ['b', 6],
      ]),
    );
    expect(fake.seenBy(both, 'a')).toEqual(pairs([1, 2, 3, 5]));
    expect(fake.seenBy(both, 'b')).toEqual(pairs([4, 6]));
    const branches = fake.feedsSeen.map((feeds) => feeds.use_cache_branch);
    const bool = (value: number) => ({ datatype: 'BOOL', dims: [1], data: Uint8Array.of(value) });
    expect(branches).toEqual([bool(0), bool(1), bool(0), bool(1)]);
    expect(fake.feedsSeen.map((feeds) => feeds['past_key_values.0.key']!.dims[2])).toEqual([0, 2, 0, 3]);

    const unmerged = fakeDecoder();
    await new DecodeBatch<string>(plain, unmerged.runStep).prefill([{ id: 'a', promptIds: [1] }]);
    expect(unmerged.feedsSeen[0]).not.toHaveProperty('use_cache_branch');
  });

  it('refuses a step that misses a member’s pending token', async () => {
    const fake = fakeDecoder();
    const batch = new DecodeBatch<string>(layout, fake.runStep);
    await batch.prefill([{ id: 'a', promptIds: [1] }]);
    await expect(batch.step(new Map())).rejects.toThrow(/no pending token/);
  });
});

describe('DecodeBatch with cross-attention', () => {
  const cross: DecoderLayout = { ...plain, crossAttention: { sequence: 2, hidden: 1 } };
  /** An image's states: [value, value + 0.5] (two positions of width one). */
  const image = (value: number) => ({ data: Float32Array.of(value, value + 0.5), sequence: 2 });
  /** The first state of each row of a run's encoder_hidden_states, checking its dims. */
  const imagesFed = (feeds: StepFeeds) => {
    const states = feeds.encoder_hidden_states!;
    const [rows = 0] = states.dims;
    expect(states.dims).toEqual([rows, 2, 1]);
    return Array.from({ length: rows }, (_, row) => states.data[row * 2]);
  };
  const tokens = (entries: Array<[string, number]>) => new Map(entries);

  it('feeds each row its own encoder states through joins, leaves, detaches and absorbs', async () => {
    const fake = fakeDecoder(cross);
    const batch = new DecodeBatch<string>(cross, fake.runStep);
    await batch.prefill([
      { id: 'a', promptIds: [1], encoderStates: image(10) },
      { id: 'b', promptIds: [2, 3], encoderStates: image(20) },
    ]);
    expect(imagesFed(fake.feedsSeen.at(-1)!)).toEqual([10, 20]);
    await batch.prefill([{ id: 'c', promptIds: [4], encoderStates: image(30) }]);
    expect(imagesFed(fake.feedsSeen.at(-1)!)).toEqual([30]);
    await batch.step(
      tokens([
        ['a', 5],
        ['b', 6],
        ['c', 7],
      ]),
    );
    expect(imagesFed(fake.feedsSeen.at(-1)!)).toEqual([10, 20, 30]);
    batch.remove(['b']);
    await batch.step(
      tokens([
        ['a', 5],
        ['c', 7],
      ]),
    );
    expect(imagesFed(fake.feedsSeen.at(-1)!)).toEqual([10, 30]);
    const alone = batch.detach('a');
    await alone.step(tokens([['a', 8]]));
    expect(imagesFed(fake.feedsSeen.at(-1)!)).toEqual([10]);
    await batch.step(tokens([['c', 9]]));
    expect(imagesFed(fake.feedsSeen.at(-1)!)).toEqual([30]);
    batch.absorb(alone);
    await batch.step(
      tokens([
        ['a', 5],
        ['c', 7],
      ]),
    );
    expect(batch.ids).toEqual(['c', 'a']);
    expect(imagesFed(fake.feedsSeen.at(-1)!)).toEqual([30, 10]);
  });

  it('builds the stacked encoder_hidden_states once per membership change, not at every step', async () => {
    const fake = fakeDecoder(cross);
    const batch = new DecodeBatch<string>(cross, fake.runStep);
    // States lying in order in one buffer (one encoder run's output) are fed as they are.
    const output = Float32Array.of(1, 1.5, 2, 2.5);
    const views = [0, 1].map((row) => ({ data: output.subarray(row * 2, row * 2 + 2), sequence: 2 }));
    await batch.prefill([
      { id: 'a', promptIds: [1], encoderStates: views[0] },
      { id: 'b', promptIds: [1], encoderStates: views[1] },
    ]);
    const step = () => batch.step(tokens(batch.ids.map((id) => [id, 3])));
    await step();
    await step();
    const fed = () => fake.feedsSeen.map((feeds) => feeds.encoder_hidden_states!.data);
    expect(fed()[0]!.buffer).toBe(output.buffer);
    expect(fed()[1]).toBe(fed()[0]);
    expect(fed()[2]).toBe(fed()[0]);
    await batch.prefill([{ id: 'c', promptIds: [1], encoderStates: image(3) }]);
    await step();
    await step();
    expect(fed()[4]).not.toBe(fed()[0]);
    expect(fed()[5]).toBe(fed()[4]);
    expect(Array.from(fed()[5] as Float32Array)).toEqual([1, 1.5, 2, 2.5, 3, 3.5]);
    batch.remove(['a']);
    await step();
    await step();
    expect(Array.from(fed()[6] as Float32Array)).toEqual([2, 2.5, 3, 3.5]);
    expect(fed()[7]).toBe(fed()[6]);
  });

  it('refuses a joiner without encoder states, or whose image gave another number of states', async () => {
    const fake = fakeDecoder(cross);
    const batch = new DecodeBatch<string>(cross, fake.runStep);
    await expect(batch.prefill([{ id: 'a', promptIds: [1] }])).rejects.toThrow(/has no image encoder states/);
    const dynamic: DecoderLayout = { ...plain, crossAttention: { sequence: -1, hidden: 1 } };
    const open = new DecodeBatch<string>(dynamic, fakeDecoder(dynamic).runStep);
    await open.prefill([{ id: 'a', promptIds: [1], encoderStates: image(1) }]);
    await expect(
      open.prefill([{ id: 'b', promptIds: [1], encoderStates: { data: new Float32Array(3), sequence: 3 } }]),
    ).rejects.toThrow(/an image of 3 encoder states cannot decode beside images of 2/);
    expect(open.ids).toEqual(['a']);
  });
});

describe('gatherCache', () => {
  it('right-aligns each row in the widest one and zero-fills the padding', () => {
    const one: DecoderLayout = {
      layers: 1,
      heads: 1,
      headSize: 1,
      hasPositionIds: false,
      useCacheBranch: false,
    };
    const a = { lengths: [2], width: 3, tensors: [Float32Array.of(0, 1, 2), Float32Array.of(0, 3, 4)] };
    const b = {
      lengths: [1, 3],
      width: 3,
      tensors: [Float32Array.of(0, 0, 5, 6, 7, 8), Float32Array.of(0, 0, 9, 1, 1, 1)],
    };
    const gathered = gatherCache(
      one,
      [a, b],
      [
        [1, 0],
        [0, 0],
      ],
    );
    expect(gathered).toEqual({
      lengths: [1, 2],
      width: 2,
      tensors: [Float32Array.of(0, 5, 1, 2), Float32Array.of(0, 9, 3, 4)],
    });
  });
});
