// A GenerationLoop over a fake decoder, for the loop's unit tests (pure logic: no onnxruntime).
import { type PrefillChunking } from '@modelgate/generation';
import { type StepFeeds, type StepOutputs } from '../../src/generation/decode-batch.js';
import { type DecoderLayout } from '../../src/generation/decoder-layout.js';
import { type EncodeImages } from '../../src/generation/encoder-states.js';
import { GenerationLoop } from '../../src/generation/generation-loop.js';
import { type GenerationAdd, type GenerationEvent } from '../../src/generation/generation-protocol.js';

/** One layer, one head of size one, position_ids fed. */
export const TEST_LAYOUT: DecoderLayout = {
  layers: 1,
  heads: 1,
  headSize: 1,
  hasPositionIds: true,
  useCacheBranch: false,
};

/** The fake decoder's vocabulary. */
export const TEST_VOCAB = 50;

/** A fake decoder whose next token is always the last fed token + 1 (mod TEST_VOCAB); it records [rows, tokens] and the feeds of each run. */
export function countingStep(steps: number[][], feedsSeen: StepFeeds[] = []) {
  return (feeds: StepFeeds): Promise<StepOutputs> => {
    const [rows = 0, tokens = 0] = feeds.input_ids!.dims;
    const width = feeds['past_key_values.0.key']!.dims[2]!;
    steps.push([rows, tokens]);
    feedsSeen.push(feeds);
    const logits = new Float32Array(rows * tokens * TEST_VOCAB);
    for (let row = 0; row < rows; row++) {
      const last = Number(feeds.input_ids!.data[row * tokens + tokens - 1]);
      logits[(row * tokens + tokens - 1) * TEST_VOCAB + ((last + 1) % TEST_VOCAB)] = 1;
    }
    const present = { dims: [rows, 1, width + tokens, 1], data: new Float32Array(rows * (width + tokens)) };
    return Promise.resolve({
      logits: { dims: [rows, tokens, TEST_VOCAB], data: logits },
      'present.0.key': present,
      'present.0.value': { ...present, data: present.data.slice() },
    });
  };
}

/** Options of {@link harness}. */
export interface HarnessOptions {
  now?: () => number;
  layout?: DecoderLayout;
  /** Runs before the counting decoder; throwing fails the run (a bad sequence, a broken model). */
  before?: (feeds: StepFeeds, events: readonly GenerationEvent[]) => void;
  /** The image encoder of a layout with cross-attention. */
  encode?: EncodeImages;
  /** Chunked prefill; none by default. */
  chunking?: PrefillChunking;
}

/** A loop with `maxSequences` slots over {@link countingStep}, and helpers to drive and read it. */
export function harness(maxSequences: number, options: HarnessOptions = {}) {
  const now = options.now ?? Date.now;
  const events: GenerationEvent[] = [];
  const steps: number[][] = [];
  const feeds: StepFeeds[] = [];
  const waiters: Array<() => void> = [];
  const counting = countingStep(steps, feeds);
  const loop = new GenerationLoop(
    options.layout ?? TEST_LAYOUT,
    { maxSequences, maxCacheTokens: 10_000, maxQueue: 100 },
    {
      step: (stepFeeds) => {
        options.before?.(stepFeeds, events);
        return counting(stepFeeds);
      },
      ...(options.encode ? { encode: options.encode } : {}),
    },
    (batch) => {
      events.push(...batch);
      waiters.splice(0).forEach((wake) => wake());
    },
    now,
    options.chunking,
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
  return { loop, events, steps, feeds, until, tokensOf, endOf, add, decodeSizes };
}
