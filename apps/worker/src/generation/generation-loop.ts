/**
 * The continuous-batching loop of one decoder session. It runs on the session's thread, where
 * the cache lives, and takes commands between steps (it yields to the thread's event loop before
 * each one, so adds and cancels arrive mid-generation). Each turn: the pure policy
 * (`planGenerationStep`) says who leaves, who is dropped and who joins; joiners are prefilled
 * together and merged into the batch; then one decode step runs for every running sequence.
 * Finished or cancelled sequences leave at the next turn and free their slot and cache. A model
 * run that fails is retried one sequence at a time, so a bad sequence fails alone. Image-to-text:
 * a prefill group's images are encoded in one encoder run first, and each sequence's encoder
 * states go with it into the batch (and into a retry alone). Chunked prefill: a prompt longer than
 * the chunk is staged on a batch of its own and prefilled a slice per turn (`planPrefillSlices`)
 * between the running batch's decode steps, joining the batch once its last slice ran.
 */
import {
  type GenerationLimits,
  type PrefillChunking,
  type StepPlan,
  planGenerationStep,
} from '@modelgate/generation';
import { DecodeBatch, type RunStep, type StepLogits } from './decode-batch.js';
import { type DecoderLayout, limitsForLayout } from './decoder-layout.js';
import { type EncodeImages } from './encoder-states.js';
import { PREFILL_TOKEN_BUDGET, prefillGroups } from './prefill-groups.js';
import { type GenerationCommand, type GenerationEvent, type StepPhase } from './generation-protocol.js';
import { StagedPrompts } from './staged-prompts.js';
import {
  type Sequence,
  encodeSequences,
  runningViews,
  sampleNext,
  sequenceOf,
  waitingViews,
} from './loop-sequence.js';

/** The model runs of a loop: the decoder's step, and the image encoder of an image-to-text model. */
export interface GenerationModel {
  step: RunStep;
  encode?: EncodeImages;
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
  /** Set by `resume` (the model drains, for good): test pauses no longer hold the loop. */
  private draining = false;
  private readonly limits: GenerationLimits;
  /** Prompts prefilled in slices (chunked prefill). */
  private readonly staged: StagedPrompts;

  private readonly runStep: RunStep;

  constructor(
    private readonly layout: DecoderLayout,
    limits: GenerationLimits,
    private readonly model: GenerationModel,
    private readonly emit: (events: GenerationEvent[]) => void,
    private readonly now: () => number = Date.now,
    chunking: PrefillChunking = { chunkTokens: 0 },
  ) {
    if (layout.crossAttention && !model.encode)
      throw new Error('a decoder with cross-attention needs its image encoder');
    this.limits = limitsForLayout(layout, limits);
    this.runStep = model.step;
    this.batch = new DecodeBatch(layout, this.runStep);
    this.staged = new StagedPrompts(chunking, layout.crossAttention !== undefined, () => this.newBatch());
  }

  /** Takes one command; starts the loop when there is work. */
  handle(command: Exclude<GenerationCommand, { type: 'start' }>): void {
    if (command.type === 'add') {
      this.waiting.push(sequenceOf(command));
    } else if (command.type === 'resume') {
      this.draining = true;
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
    const plan = this.planAndLeave(this.limits, nowMs);
    const joining = new Set(plan.join);
    const joiners = this.waiting.filter((s) => joining.has(s.add.seq));
    if (joiners.length > 0) {
      this.waiting.splice(0, this.waiting.length, ...this.waiting.filter((s) => !joining.has(s.add.seq)));
      for (const sequence of joiners) {
        this.running.set(sequence.add.seq, sequence);
        const queueMicros = Math.max(0, Math.round((nowMs - sequence.add.enqueuedAtMs) * 1000));
        this.send({ type: 'started', seq: sequence.add.seq, queueMicros });
      }
      // They no longer wait: the main thread's queue count (429s) must not wait for the prefill.
      this.flush();
      const whole = joiners.filter((s) => !this.staged.takes(s));
      for (const sequence of joiners) if (this.staged.takes(sequence)) this.staged.stage(sequence);
      for (const group of prefillGroups(whole, (s) => s.add.promptIds.length, PREFILL_TOKEN_BUDGET)) {
        await this.prefill(group);
        this.flush();
      }
    }
    await this.prefillSlices();
    if (this.batch.size > 0 && this.paused === undefined) await this.decode();
  }

  private newBatch(): DecodeBatch<number> {
    return new DecodeBatch(this.layout, this.runStep);
  }

  /**
   * Runs this turn's slices of the staged prompts; a prompt whose last slice ran samples its first
   * token and joins the running batch. A slice that fails ends its sequence alone.
   */
  private async prefillSlices(): Promise<void> {
    await this.staged.runTurn(this.running, {
      last: (sequence, logits, startedMs, batch) => {
        this.afterStep('prefill', [sequence], logits, startedMs);
        if (sequence.finished === undefined) this.batch.absorb(batch);
        this.flush();
      },
      slice: (sequence, micros) => {
        sequence.computeMicros += micros;
        this.send({ type: 'step', phase: 'prefill', sequences: 1, micros });
        this.flush();
      },
      failed: (sequence, error) => {
        this.failOne(sequence, error);
        this.flush();
      },
    });
  }

  /** Plans the step under `limits`, and ends the sequences that leave or are dropped. */
  private planAndLeave(limits: GenerationLimits, nowMs: number): StepPlan<number> {
    const plan = planGenerationStep(
      runningViews(this.running.values()),
      waitingViews(this.waiting),
      limits,
      nowMs,
    );
    for (const { id, reason } of plan.leave) {
      this.running.delete(id);
      this.staged.drop(id);
      if (reason === 'cancelled' || reason === 'deadline') this.end(id, reason);
    }
    this.batch.remove(plan.leave.map((leaving) => leaving.id));
    for (const { id, reason } of plan.drop) {
      const index = this.waiting.findIndex((s) => s.add.seq === id);
      if (index >= 0) this.waiting.splice(index, 1);
      this.end(id, reason);
    }
    return plan;
  }

  /**
   * Encodes `group`'s images (one encoder run) and prefills it together; when either run fails,
   * each joiner alone, with the states it already has (a bad one fails by itself).
   */
  private async prefill(group: readonly Sequence[]): Promise<void> {
    const run = async (sequences: readonly Sequence[]): Promise<void> => {
      await this.encode(sequences);
      const started = performance.now();
      const joiners = sequences.map((s) => ({
        id: s.add.seq,
        promptIds: s.add.promptIds,
        encoderStates: s.encoderStates,
      }));
      this.afterStep('prefill', sequences, await this.batch.prefill(joiners), started);
    };
    try {
      await run(group);
    } catch (error) {
      if (group.length === 1) return this.failOne(group[0]!, error);
      for (const sequence of group) await run([sequence]).catch((e: unknown) => this.failOne(sequence, e));
    }
  }

  /** Runs the image encoder once on the images of `sequences` not yet encoded; each keeps its states. */
  private async encode(sequences: readonly Sequence[]): Promise<void> {
    const { encode } = this.model;
    const { crossAttention } = this.layout;
    if (!encode || !crossAttention) return;
    const step = await encodeSequences(sequences, encode, crossAttention);
    if (step) this.send({ type: 'step', phase: 'encode', ...step });
  }

  /** One decode step of the batch; when it fails, each sequence alone on its own cache row. */
  private async decode(): Promise<void> {
    const members = this.batch.ids.map((seq) => this.running.get(seq)!);
    const started = performance.now();
    let logits: StepLogits<number>;
    try {
      logits = await this.batch.step(new Map(members.map((s) => [s.add.seq, s.pending ?? 0])));
    } catch (error) {
      if (members.length > 1) return this.decodeOneByOne(members);
      this.batch.remove([members[0]!.add.seq]);
      return this.failOne(members[0]!, error);
    }
    this.afterStep('decode', members, logits, started);
  }

  /** Runs each of `members` alone on its own cache row; the ones that succeed form the new batch. */
  private async decodeOneByOne(members: readonly Sequence[]): Promise<void> {
    const survivors = new DecodeBatch<number>(this.layout, this.runStep);
    for (const sequence of members) {
      const { seq } = sequence.add;
      const alone = this.batch.detach(seq);
      const startedAlone = performance.now();
      try {
        const logits = await alone.step(new Map([[seq, sequence.pending ?? 0]]));
        this.afterStep('decode', [sequence], logits, startedAlone);
        if (sequence.finished === undefined) survivors.absorb(alone);
      } catch (error) {
        this.failOne(sequence, error);
      }
    }
    this.batch = survivors;
  }

  /** Samples each sequence's next token, reports it, and marks finished sequences. */
  private afterStep(
    phase: Exclude<StepPhase, 'encode'>,
    sequences: readonly Sequence[],
    logits: StepLogits<number>,
    startedMs: number,
  ): void {
    const micros = Math.round((performance.now() - startedMs) * 1000);
    this.send({ type: 'step', phase, sequences: sequences.length, micros });
    for (const sequence of sequences) {
      sequence.computeMicros += micros;
      const tokens = sampleNext(sequence, logits);
      if (!tokens) continue;
      this.send(tokens);
      if (sequence.pause && !sequence.finished && sequence.generated >= sequence.pause.afterTokens) {
        this.paused = sequence;
      }
    }
    // A sequence that finished leaves the batch now: it must not be fed again.
    this.batch.remove(sequences.filter((s) => s.finished !== undefined).map((s) => s.add.seq));
  }

  /**
   * Test hook: waits until enough sequences wait to join, the pausing one is cancelled or ends,
   * or the model drains. Meanwhile sequences still leave on their deadline or cancellation (none
   * joins, no step runs).
   */
  private async holdIfPaused(): Promise<void> {
    const sequence = this.paused;
    if (!sequence?.pause) return;
    const { untilWaiting } = sequence.pause;
    delete sequence.pause;
    this.paused = undefined;
    this.flush();
    const holding = (): boolean =>
      !this.draining &&
      !sequence.cancelled &&
      this.running.has(sequence.add.seq) &&
      this.waiting.filter((s) => !s.cancelled).length < untilWaiting;
    while (holding()) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        const next = this.nextDeadline();
        if (Number.isFinite(next)) timer = setTimeout(resolve, Math.max(0, next - this.now()));
      });
      clearTimeout(timer);
      this.wake = undefined;
      this.planAndLeave({ ...this.limits, maxSequences: 0 }, this.now());
      this.flush();
    }
  }

  /** The earliest deadline of a sequence waiting or running (Infinity when none has one). */
  private nextDeadline(): number {
    let next = Infinity;
    for (const s of [...this.waiting, ...this.running.values()])
      next = Math.min(next, s.add.deadlineMs ?? next);
    return next;
  }

  /** A sequence whose own model run failed ends alone (it is already out of the batch). */
  private failOne(sequence: Sequence, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.running.delete(sequence.add.seq);
    if (this.paused === sequence) this.paused = undefined;
    this.send({
      type: 'ended',
      seq: sequence.add.seq,
      reason: 'failed',
      message: `generation failed: ${message}`,
    });
  }

  /** An unexpected failure of the loop itself ends every running sequence; the waiting ones start on a fresh batch. */
  private failRunning(message: string): void {
    for (const seq of this.running.keys()) {
      this.send({ type: 'ended', seq, reason: 'failed', message: `generation failed: ${message}` });
    }
    this.running.clear();
    this.staged.clear();
    this.paused = undefined;
    this.batch = this.newBatch();
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
