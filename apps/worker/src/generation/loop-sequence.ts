// A sequence as the generation loop keeps it, and what the step policy sees of it.
import {
  type Penalties,
  type RunningSequence,
  type TokenSampler,
  type WaitingSequence,
  applyPenalties,
  createTokenSampler,
  hasPenalties,
  tokenLogprob,
} from '@modelgate/generation';
import { type StepLogits } from './decode-batch.js';
import { type CrossAttention } from './decoder-layout.js';
import { type EncodeImages, type EncoderStates, encodeImages } from './encoder-states.js';
import {
  type GenerationAdd,
  type GenerationEvent,
  type ImagePixels,
  type LoopPause,
} from './generation-protocol.js';

/** One sequence in the loop, waiting or running. */
export interface Sequence {
  /** The command, its image taken out (into `pixels`, dropped once encoded). */
  readonly add: Omit<GenerationAdd, 'pixels'>;
  readonly eos: ReadonlySet<number>;
  readonly sampler: TokenSampler;
  /** The processors that read the history, when any acts; `generatedIds` is kept for them. */
  readonly penalties?: Penalties;
  /** The tokens generated so far (kept only when `penalties` act). */
  readonly generatedIds: number[];
  /** image-to-text: the image until it is encoded (then dropped). */
  pixels?: ImagePixels;
  /** image-to-text: the image's encoder states, once encoded (kept for a retry alone). */
  encoderStates?: EncoderStates;
  generated: number;
  /** The last sampled token: fed by the next decode step. */
  pending?: number;
  finished?: 'eos' | 'length';
  cancelled: boolean;
  computeMicros: number;
  pause?: LoopPause;
}

/** A new waiting sequence for `add`. */
export function sequenceOf(command: GenerationAdd): Sequence {
  const { pixels, ...add } = command;
  return {
    add,
    eos: new Set(add.eosTokenIds),
    sampler: createTokenSampler(add.sampling),
    ...(add.penalties && hasPenalties(add.penalties) ? { penalties: add.penalties } : {}),
    generatedIds: [],
    ...(pixels ? { pixels } : {}),
    generated: 0,
    cancelled: false,
    computeMicros: 0,
    ...(add.pause ? { pause: add.pause } : {}),
  };
}

/** What the policy sees of a sequence, waiting or running. */
const viewOf = (s: Sequence) => ({
  id: s.add.seq,
  promptTokens: s.add.promptIds.length,
  maxNewTokens: s.add.maxNewTokens,
  cancelled: s.cancelled,
  ...(s.add.deadlineMs !== undefined ? { deadlineMs: s.add.deadlineMs } : {}),
});

/** The policy's view of running sequences. */
export function runningViews(running: Iterable<Sequence>): RunningSequence<number>[] {
  return [...running].map((s) => ({
    ...viewOf(s),
    generatedTokens: s.generated,
    ...(s.finished ? { finished: s.finished } : {}),
  }));
}

/** The policy's view of waiting sequences. */
export function waitingViews(waiting: readonly Sequence[]): WaitingSequence<number>[] {
  return waiting.map((s) => ({ ...viewOf(s), enqueuedAtMs: s.add.enqueuedAtMs }));
}

/**
 * Samples `sequence`'s next token from a step's logits, marks it finished at eos or its length,
 * and returns its tokens event (undefined when the step gave it no logits).
 */
export function sampleNext(
  sequence: Sequence,
  logits: StepLogits<number>,
): Extract<GenerationEvent, { type: 'tokens' }> | undefined {
  const offset = logits.offsets.get(sequence.add.seq);
  if (offset === undefined) return undefined;
  const token = pickToken(sequence, logits, offset);
  // Read from the model's own row: the processors acted on a copy, the sampler changes nothing.
  const logprobs =
    sequence.add.logprobs === undefined
      ? undefined
      : [tokenLogprob(logits.logits, offset, logits.vocabSize, token, sequence.add.logprobs)];
  sequence.generated += 1;
  sequence.pending = token;
  if (sequence.eos.has(token)) sequence.finished = 'eos';
  else if (sequence.generated >= sequence.add.maxNewTokens) sequence.finished = 'length';
  return {
    type: 'tokens',
    seq: sequence.add.seq,
    tokenIds: [token],
    computeMicros: sequence.computeMicros,
    ...(sequence.finished ? { finishReason: sequence.finished } : {}),
    ...(logprobs ? { logprobs } : {}),
  };
}

/** The sampler's pick from the sequence's row, after the processors that read its history (on a copy). */
function pickToken(sequence: Sequence, logits: StepLogits<number>, offset: number): number {
  const { penalties } = sequence;
  if (!penalties) return sequence.sampler.pick(logits.logits, offset, logits.vocabSize);
  const row = logits.logits.slice(offset, offset + logits.vocabSize);
  applyPenalties(row, penalties, {
    promptIds: sequence.add.promptIds,
    generatedIds: sequence.generatedIds,
    eosIds: sequence.eos,
  });
  const token = sequence.sampler.pick(row, 0, logits.vocabSize);
  sequence.generatedIds.push(token);
  return token;
}

/**
 * Encodes the images of `sequences` not encoded yet, together (see `encodeImages`); each keeps
 * its states and drops its image, and counts the run's time. Returns the run's size and time, or
 * undefined when no image needed it.
 */
export async function encodeSequences(
  sequences: readonly Sequence[],
  encode: EncodeImages,
  cross: CrossAttention,
): Promise<{ sequences: number; micros: number } | undefined> {
  const images = sequences.filter((s) => s.encoderStates === undefined && s.pixels !== undefined);
  if (images.length === 0) return undefined;
  const started = performance.now();
  const states = await encodeImages(
    images.map((s) => s.pixels!),
    encode,
    cross,
  );
  const micros = Math.round((performance.now() - started) * 1000);
  images.forEach((sequence, index) => {
    sequence.encoderStates = states[index]!;
    sequence.computeMicros += micros;
    delete sequence.pixels;
  });
  return { sequences: images.length, micros };
}
