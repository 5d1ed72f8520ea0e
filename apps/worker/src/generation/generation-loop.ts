/**
 * The continuous-batching loop of one decoder session. It runs on the session's thread, where
 * the cache lives, and takes commands between steps (it yields to the thread's event loop before
 * each one, so adds and cancels arrive mid-generation). Each turn: the pure policy
 * (`planGenerationStep`) says who leaves, who is dropped and who joins; joiners are prefilled
 * together and merged into the batch; then one decode step runs for every running sequence.
 * Finished or cancelled sequences leave at the next turn and free their slot and cache.
 */
import {
  type GenerationLimits,
  type RunningSequence,
  type TokenSampler,
  type WaitingSequence,
  createTokenSampler,
  planGenerationStep,
} from '@modelgate/generation';
import { DecodeBatch, type RunStep, type StepLogits } from './decode-batch.js';
import { type DecoderLayout } from './decoder-layout.js';
import {
  type GenerationAdd,
  type GenerationCommand,
  type GenerationEvent,
  type LoopPause,
} from './generation-protocol.js';

interface Sequence {
  readonly add: GenerationAdd;
  readonly eos: ReadonlySet<number>;
  readonly sampler: TokenSampler;
  generated: number;
  /** The last sampled token: fed by the next decode step. */
  pending?: number;
  finished?: 'eos' | 'length';
  cancelled: boolean;
  computeMicros: number;
  pause?: LoopPause;
}

/**
 * Most prompt positions (rows × longest prompt) one prefill run takes. An export with past
 * computes logits at every position, [rows, width, vocab] floats (about 100 MB at GPT-2's vocab):
 * joiners beyond it are prefilled in further runs before the next decode step.
 */
export const PREFILL_TOKEN_BUDGET = 512;

/** Splits `items`, in order, into groups whose count × longest length stays within `budget` (a longer one goes alone). */
export function prefillGroups<T>(items: readonly T[], length: (item: T) => number, budget: number): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  let longest = 0;
  for (const item of items) {
    const width = Math.max(longest, length(item));
    if (group.length > 0 && (group.length + 1) * width > budget) {
      groups.push(group);
      group = [];
      longest = 0;
    }
    group.push(item);
    longest = Math.max(longest, length(item));
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** Hands control back to the thread's event loop so queued messages are handled. */
const yieldToMessages = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The decode loop of one session thread: commands in through `handle`, token events out through `emit`. */
export class GenerationLoop {
  private readonly waiting: Sequence[] = [];
  private readonly running = new Map<number, Sequence>();
  private batch: DecodeBatch<number>;
  private outbox: GenerationEvent[] = [];
  private looping = false;
  private paused: Sequence | undefined;
  private wake: (() => void) | undefined;
  private resumed = false;

  constructor(
    private readonly layout: DecoderLayout,
    private readonly limits: GenerationLimits,
    private readonly runStep: RunStep,
    private readonly emit: (events: GenerationEvent[]) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.batch = new DecodeBatch(layout, runStep);
  }

  /** Takes one command; starts the loop when there is work. */
  handle(command: Exclude<GenerationCommand, { type: 'start' }>): void {
    if (command.type === 'add') {
      this.waiting.push({
        add: command,
        eos: new Set(command.eosTokenIds),
        sampler: createTokenSampler(command.sampling),
        generated: 0,
        cancelled: false,
        computeMicros: 0,
        ...(command.pause ? { pause: command.pause } : {}),
      });
    } else if (command.type === 'resume') {
      this.resumed = true;
    } else {
      const sequence = this.running.get(command.seq) ?? this.waiting.find((s) => s.add.seq === command.seq);
      if (sequence) sequence.cancelled = true;
    }
    this.wake?.();
    if (!this.looping) {
      this.looping = true;
      void this.loop().finally(() => {
        this.looping = false;
      });
    }
  }

  private async loop(): Promise<void> {
    while (this.waiting.length > 0 || this.running.size > 0) {
      await yieldToMessages();
      await this.holdIfPaused();
      try {
        await this.turn();
      } catch (error) {
        this.failRunning(error instanceof Error ? error.message : String(error));
      }
      this.flush();
    }
  }

  private async turn(): Promise<void> {
    const nowMs = this.now();
    const plan = planGenerationStep(this.runningViews(), this.waitingViews(), this.limits, nowMs);
    for (const { id, reason } of plan.leave) {
      this.running.delete(id);
      if (reason === 'cancelled' || reason === 'deadline') this.end(id, reason);
    }
    this.batch.remove(plan.leave.map((leaving) => leaving.id));
    for (const { id, reason } of plan.drop) {
      const index = this.waiting.findIndex((s) => s.add.seq === id);
      if (index >= 0) this.waiting.splice(index, 1);
      this.end(id, reason);
    }
    const joining = new Set(plan.join);
    const joiners = this.waiting.filter((s) => joining.has(s.add.seq));
    if (joiners.length > 0) {
      this.waiting.splice(0, this.waiting.length, ...this.waiting.filter((s) => !joining.has(s.add.seq)));
      for (const sequence of joiners) {
        this.running.set(sequence.add.seq, sequence);
        const queueMicros = Math.max(0, Math.round((nowMs - sequence.add.enqueuedAtMs) * 1000));
        this.send({ type: 'started', seq: sequence.add.seq, queueMicros });
      }
      for (const group of prefillGroups(joiners, (s) => s.add.promptIds.length, PREFILL_TOKEN_BUDGET)) {
        const started = performance.now();
        const logits = await this.batch.prefill(
          group.map((s) => ({ id: s.add.seq, promptIds: s.add.promptIds })),
        );
        this.afterStep('prefill', group, logits, started);
        this.flush();
      }
    }
    if (this.batch.size > 0 && this.paused === undefined) {
      const members = this.batch.ids.map((seq) => this.running.get(seq)!);
      const tokens = new Map(members.map((s) => [s.add.seq, s.pending ?? 0]));
      const started = performance.now();
      const logits = await this.batch.step(tokens);
      this.afterStep('decode', members, logits, started);
    }
  }

  /** Samples each sequence's next token, reports it, and marks finished sequences. */
  private afterStep(
    phase: 'prefill' | 'decode',
    sequences: readonly Sequence[],
    logits: StepLogits<number>,
    startedMs: number,
  ): void {
    const micros = Math.round((performance.now() - startedMs) * 1000);
    this.send({ type: 'step', phase, sequences: sequences.length, micros });
    for (const sequence of sequences) {
      sequence.computeMicros += micros;
      const offset = logits.offsets.get(sequence.add.seq);
      if (offset === undefined) continue;
      const token = sequence.sampler.pick(logits.logits, offset, logits.vocabSize);
      sequence.generated += 1;
      sequence.pending = token;
      if (sequence.eos.has(token)) sequence.finished = 'eos';
      else if (sequence.generated >= sequence.add.maxNewTokens) sequence.finished = 'length';
      this.send({
        type: 'tokens',
        seq: sequence.add.seq,
        tokenIds: [token],
        computeMicros: sequence.computeMicros,
        ...(sequence.finished ? { finishReason: sequence.finished } : {}),
      });
      if (sequence.pause && !sequence.finished && sequence.generated >= sequence.pause.afterTokens) {
        this.paused = sequence;
      }
    }
    // A sequence that finished leaves the batch now: it must not be fed again.
    this.batch.remove(sequences.filter((s) => s.finished !== undefined).map((s) => s.add.seq));
  }

  /** Test hook: waits until enough sequences wait to join or the pausing one is cancelled. */
  private async holdIfPaused(): Promise<void> {
    const sequence = this.paused;
    if (!sequence?.pause) return;
    const { untilWaiting } = sequence.pause;
    delete sequence.pause;
    this.paused = undefined;
    this.flush();
    while (
      !this.resumed &&
      !sequence.cancelled &&
      this.waiting.filter((s) => !s.cancelled).length < untilWaiting
    ) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }

  private runningViews(): RunningSequence<number>[] {
    return [...this.running.values()].map((s) => ({
      id: s.add.seq,
      promptTokens: s.add.promptIds.length,
      maxNewTokens: s.add.maxNewTokens,
      generatedTokens: s.generated,
      cancelled: s.cancelled,
      ...(s.finished ? { finished: s.finished } : {}),
      ...(s.add.deadlineMs !== undefined ? { deadlineMs: s.add.deadlineMs } : {}),
    }));
  }

  private waitingViews(): WaitingSequence<number>[] {
    return this.waiting.map((s) => ({
      id: s.add.seq,
      promptTokens: s.add.promptIds.length,
      maxNewTokens: s.add.maxNewTokens,
      enqueuedAtMs: s.add.enqueuedAtMs,
      cancelled: s.cancelled,
      ...(s.add.deadlineMs !== undefined ? { deadlineMs: s.add.deadlineMs } : {}),
    }));
  }

  /** A failed model run ends every running sequence; the waiting ones start on a fresh batch. */
  private failRunning(message: string): void {
    for (const seq of this.running.keys()) {
      this.send({ type: 'ended', seq, reason: 'failed', message: `generation failed: ${message}` });
    }
    this.running.clear();
    this.batch = new DecodeBatch(this.layout, this.runStep);
  }

  private end(seq: number, reason: 'cancelled' | 'deadline'): void {
    const message = reason === 'cancelled' ? 'cancelled by the caller' : 'deadline exceeded';
    this.send({ type: 'ended', seq, reason, message });
  }

  private send(event: GenerationEvent): void {
    this.outbox.push(event);
  }

  private flush(): void {
    if (this.outbox.length === 0) return;
    const events = this.outbox;
    this.outbox = [];
    this.emit(events);
  }
}
