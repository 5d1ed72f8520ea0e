/**
 * One text-generation model's front on the main thread: admits requests (queue and cache budget,
 * through the pure `admitGeneration`), hands each to the generation loop of one session thread,
 * and turns the loop's events back into per-request callbacks. The KV cache and the decode loop
 * stay on the session threads; only commands and token ids cross.
 *
 * Limits are per session instance, as an encoder batch is: `maxBatchSize` sequences decode
 * together on each instance; `maxQueueSize` bounds the sequences waiting for a slot, all
 * instances together.
 */
import { ErrorCode, type GenerationFacts, ModelgateError } from '@modelgate/contracts';
import {
  type GenerationLimits,
  type Penalties,
  type PrefillChunking,
  type SamplingParams,
  type TokenLogprob,
  admitGeneration,
} from '@modelgate/generation';
import { type OnnxSession } from '../model-loading/onnx-session.adapter.js';
import { type DecoderLayout } from './decoder-layout.js';
import {
  type GenerationEvent,
  type ImagePixels,
  type LoopPause,
  type StepPhase,
} from './generation-protocol.js';

/** A request as the runner takes it (already validated). */
export interface GenerateRequest {
  /** image-to-text: the decoder's start token(s). */
  promptIds: number[];
  /** image-to-text (required there): the image, its data alone in its buffer or a view it may copy once. */
  pixels?: ImagePixels;
  maxNewTokens: number;
  eosTokenIds: number[];
  sampling: SamplingParams;
  /** The processors that read the sequence's history; absent: none. */
  penalties?: Penalties;
  /** Report each token's log-probability and this many of its step's most likely tokens; absent: none. */
  logprobs?: number;
}

/** Per-call options of {@link GenerationRunner.generate}. */
export interface GenerateOptions {
  /** Absolute deadline (epoch ms): a sequence still waiting or running then ends with DEADLINE_EXCEEDED. */
  deadlineEpochMs?: number;
  /** Test hook (WORKER_TEST_HOOKS only); see {@link LoopPause}. */
  pause?: LoopPause;
  /** Test hook (WORKER_TEST_HOOKS only): the session thread the sequence went to dies right after. */
  crashSession?: boolean;
}

/** Where one request's results go; exactly one of `tokens` with a finish reason or `failed` ends it. */
export interface GenerationSink {
  started(queueMicros: number): void;
  tokens(
    tokenIds: number[],
    finishReason: 'eos' | 'length' | undefined,
    computeMicros: number,
    logprobs?: TokenLogprob[],
  ): void;
  failed(error: ModelgateError): void;
}

/** What a runner reports to its owner, for metrics. */
export interface GenerationRunnerHooks {
  onStep?: (phase: StepPhase, sequences: number, seconds: number) => void;
  onTokens?: (count: number) => void;
  onSessionLost?: (reason: string) => void;
}

interface Live {
  readonly session: number;
  readonly sink: GenerationSink;
  started: boolean;
}

/** The default KV-cache budget per instance when `maxBatchTokens` is not set: 1024 tokens a slot. */
export const CACHE_TOKENS_PER_SLOT = 1024;

/**
 * Generation limits from a ModelSpec's `batching` block (the design's mapping) and the model's
 * own positions when preparation read them (`generation`).
 */
export function generationLimitsOf(
  batching: {
    maxBatchSize: number;
    maxQueueSize: number;
    maxBatchTokens?: number | undefined;
  },
  generation?: GenerationFacts,
): GenerationLimits {
  return {
    maxSequences: batching.maxBatchSize,
    maxQueue: batching.maxQueueSize,
    maxCacheTokens: batching.maxBatchTokens ?? batching.maxBatchSize * CACHE_TOKENS_PER_SLOT,
    ...(generation ? { maxPositions: generation.maxPositions } : {}),
  };
}

/**
 * Admission and per-request streams of one text-generation or image-to-text model, in front of its
 * sessions' decode loops (admission counts decoder tokens only; an image costs no cache).
 */
export class GenerationRunner {
  private readonly live = new Map<number, Live>();
  private readonly perSession: number[];
  private nextSeq = 0;
  private waitingCount = 0;
  private state: 'open' | 'draining' | 'closed' = 'open';
  private drained: (() => void) | undefined;

  constructor(
    private readonly modelId: string,
    private readonly sessions: readonly OnnxSession[],
    layout: DecoderLayout,
    readonly limits: GenerationLimits,
    private readonly hooks: GenerationRunnerHooks = {},
    chunking: PrefillChunking = { chunkTokens: 0 },
  ) {
    if (sessions.length === 0) throw new Error(`model ${modelId} has no sessions`);
    this.perSession = sessions.map(() => 0);
    sessions.forEach((session, index) => {
      session.onGeneration({
        events: (events) => this.onEvents(events),
        lost: (reason) => this.onLost(index, reason),
      });
      session.generate({ type: 'start', layout, limits, chunking });
    });
  }

  /** Sequences admitted that have not started their prefill. */
  get waiting(): number {
    return this.waitingCount;
  }

  /** Sequences prefilled or decoding. */
  get running(): number {
    return this.live.size - this.waitingCount;
  }

  /**
   * Admits `request` and starts it on the least busy live instance; results go to `sink`. Throws
   * UNAVAILABLE (draining, or no live instance), QUEUE_FULL or TOKEN_LIMIT_EXCEEDED (prompt +
   * max_new_tokens over the model's positions or the cache budget). The returned function cancels
   * it (it leaves at the next step).
   */
  generate(request: GenerateRequest, options: GenerateOptions, sink: GenerationSink): () => void {
    if (this.state !== 'open') {
      throw new ModelgateError(
        ErrorCode.UNAVAILABLE,
        `model ${this.modelId} is draining; not accepting requests`,
      );
    }
    const admission = admitGeneration(
      this.waitingCount,
      { promptTokens: request.promptIds.length, maxNewTokens: request.maxNewTokens },
      this.limits,
    );
    if (!admission.ok) {
      if (admission.reason === 'queue-full') {
        throw new ModelgateError(
          ErrorCode.QUEUE_FULL,
          `model ${this.modelId}: queue full (${this.waitingCount} of ${this.limits.maxQueue} waiting)`,
          { retryAfterSeconds: 1 },
        );
      }
      throw new ModelgateError(ErrorCode.TOKEN_LIMIT_EXCEEDED, `model ${this.modelId}: ${admission.message}`);
    }
    const session = this.leastBusySession();
    if (session === undefined) {
      throw new ModelgateError(ErrorCode.UNAVAILABLE, `model ${this.modelId} has no live session`);
    }
    const seq = this.nextSeq++;
    this.live.set(seq, { session, sink, started: false });
    this.perSession[session] = (this.perSession[session] ?? 0) + 1;
    this.waitingCount += 1;
    this.sessions[session]?.generate({
      type: 'add',
      seq,
      promptIds: request.promptIds,
      ...(request.pixels ? { pixels: request.pixels } : {}),
      maxNewTokens: request.maxNewTokens,
      eosTokenIds: request.eosTokenIds,
      sampling: request.sampling,
      ...(request.penalties ? { penalties: request.penalties } : {}),
      ...(request.logprobs === undefined ? {} : { logprobs: request.logprobs }),
      enqueuedAtMs: Date.now(),
      ...(options.deadlineEpochMs !== undefined ? { deadlineMs: options.deadlineEpochMs } : {}),
      ...(options.pause ? { pause: options.pause } : {}),
    });
    if (options.crashSession === true) this.sessions[session]?.crashForTest();
    return () => {
      if (this.live.has(seq)) this.sessions[session]?.generate({ type: 'cancel', seq });
    };
  }

  /** Stops admitting and resolves once every admitted sequence has ended. */
  drain(): Promise<void> {
    if (this.state === 'open') this.state = 'draining';
    for (const session of this.sessions) session.generate({ type: 'resume' });
    if (this.live.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const previous = this.drained;
      this.drained = () => {
        previous?.();
        resolve();
      };
    });
  }

  /** Ends every sequence still admitted with UNAVAILABLE (after a drain timeout). */
  close(): void {
    this.state = 'closed';
    for (const [seq, live] of [...this.live]) {
      this.sessions[live.session]?.generate({ type: 'cancel', seq });
      this.finish(seq, new ModelgateError(ErrorCode.UNAVAILABLE, `model ${this.modelId} is shutting down`));
    }
  }

  /** The live session holding the fewest sequences, or undefined when every one was lost. */
  private leastBusySession(): number | undefined {
    let best: number | undefined;
    this.perSession.forEach((count, index) => {
      if (this.sessions[index]?.lostReason !== undefined) return;
      if (best === undefined || count < (this.perSession[best] ?? Infinity)) best = index;
    });
    return best;
  }

  private onEvents(events: readonly GenerationEvent[]): void {
    for (const event of events) {
      if (event.type === 'step') {
        this.hooks.onStep?.(event.phase, event.sequences, event.micros / 1e6);
        continue;
      }
      const live = this.live.get(event.seq);
      if (!live) continue;
      switch (event.type) {
        case 'started':
          live.started = true;
          this.waitingCount -= 1;
          live.sink.started(event.queueMicros);
          break;
        case 'tokens':
          this.hooks.onTokens?.(event.tokenIds.length);
          live.sink.tokens(event.tokenIds, event.finishReason, event.computeMicros, event.logprobs);
          if (event.finishReason !== undefined) this.finish(event.seq);
          break;
        case 'ended':
          this.finish(event.seq, this.endError(event.reason, event.message, live.started));
          break;
      }
    }
  }

  private endError(
    reason: 'cancelled' | 'deadline' | 'failed',
    message: string,
    started: boolean,
  ): ModelgateError {
    switch (reason) {
      case 'cancelled':
        return new ModelgateError(
          ErrorCode.CANCELLED,
          `request cancelled ${started ? 'during generation' : 'while queued'} for ${this.modelId}`,
        );
      case 'deadline':
        return new ModelgateError(
          ErrorCode.DEADLINE_EXCEEDED,
          `deadline exceeded ${started ? 'during generation' : 'while queued'} for ${this.modelId}`,
        );
      case 'failed':
        return new ModelgateError(ErrorCode.INTERNAL, `model ${this.modelId}: ${message}`);
    }
  }

  private onLost(session: number, reason: string): void {
    this.hooks.onSessionLost?.(reason);
    for (const [seq, live] of [...this.live]) {
      if (live.session !== session) continue;
      this.finish(
        seq,
        new ModelgateError(ErrorCode.INTERNAL, `model ${this.modelId}: generation failed: ${reason}`),
      );
    }
  }

  /** Forgets `seq` (telling its sink why, when `error` is given); settles a drain that waited for it. */
  private finish(seq: number, error?: ModelgateError): void {
    const live = this.live.get(seq);
    if (!live) return;
    this.live.delete(seq);
    this.perSession[live.session] = (this.perSession[live.session] ?? 1) - 1;
    if (!live.started) this.waitingCount -= 1;
    if (error) live.sink.failed(error);
    if (this.live.size === 0 && this.drained) {
      const drained = this.drained;
      this.drained = undefined;
      drained();
    }
  }
}
