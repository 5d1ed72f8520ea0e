/**
 * What crosses between the worker's main thread (GenerationRunner) and a session thread's
 * generation loop. Only commands and token events cross; the KV cache never leaves the thread.
 * Times are epoch milliseconds (Date.now() is shared by the threads of a process).
 */
import {
  type GenerationLimits,
  type Penalties,
  type PrefillChunking,
  type SamplingParams,
  type TokenLogprob,
} from '@modelgate/generation';
import { type DecoderLayout } from './decoder-layout.js';

/**
 * Test hook (WORKER_TEST_HOOKS only): once this sequence has generated `afterTokens` tokens, the
 * loop pauses before its next step until `untilWaiting` sequences wait to join, this sequence
 * is cancelled or ends (its deadline), or the model starts draining; meanwhile sequences still
 * leave on their deadline or cancellation. Makes "a sequence joins a running batch" and "a held loop" deterministic.
 */
export interface LoopPause {
  afterTokens: number;
  untilWaiting: number;
}

/**
 * One image as the vision encoder takes it: FP32 values of [channels, height, width]. Its data
 * owns its ArrayBuffer, which is transferred (not copied) to the session thread.
 */
export interface ImagePixels {
  data: Float32Array;
  dims: number[];
}

/** One sequence to generate. */
export interface GenerationAdd {
  type: 'add';
  /** Id of the sequence, unique per session. */
  seq: number;
  promptIds: number[];
  /** image-to-text: the image the decoder attends to (encoded once, at the sequence's prefill). */
  pixels?: ImagePixels;
  maxNewTokens: number;
  eosTokenIds: number[];
  sampling: SamplingParams;
  /** The processors that read the sequence's history (penalties.ts); absent: none. */
  penalties?: Penalties;
  /** Report each token's log-probability and this many of its step's most likely tokens; absent: none. */
  logprobs?: number;
  /** When it was admitted. */
  enqueuedAtMs: number;
  /** When it must have finished; past it the sequence ends with `deadline`. */
  deadlineMs?: number;
  /** Test hook; see {@link LoopPause}. */
  pause?: LoopPause;
}

/** Commands to the loop. */
export type GenerationCommand =
  /** Sets the loop up (once, before any add). */
  | { type: 'start'; layout: DecoderLayout; limits: GenerationLimits; chunking: PrefillChunking }
  | GenerationAdd
  /** The caller went away: the sequence leaves (or never starts) at the next step. */
  | { type: 'cancel'; seq: number }
  /** The model drains: a test pause must not hold it. */
  | { type: 'resume' };

/** Events from the loop. */
export type GenerationEvent =
  /** The sequence's prefill begins; it waited `queueMicros`. */
  | { type: 'started'; seq: number; queueMicros: number }
  /** New tokens; `finishReason` on the last ones. `computeMicros`: model time of its steps so far. */
  | {
      type: 'tokens';
      seq: number;
      tokenIds: number[];
      finishReason?: 'eos' | 'length';
      computeMicros: number;
      /** With the sequence's `logprobs`: one per token id. */
      logprobs?: TokenLogprob[];
    }
  /** The sequence ended without finishing (after its `started`, or instead of it). */
  | { type: 'ended'; seq: number; reason: 'cancelled' | 'deadline' | 'failed'; message: string }
  /**
   * One model run: the image encoder on joining sequences' images (image-to-text), a prefill of
   * joining sequences or a decode step of the running batch.
   */
  | { type: 'step'; phase: StepPhase; sequences: number; micros: number };

/** What one model run of the loop was. */
export type StepPhase = 'encode' | 'prefill' | 'decode';
