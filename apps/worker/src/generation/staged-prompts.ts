// Chunked prefill in the decode loop: the prompts being prefilled in slices, each on a batch of its
// own (its cache grows slice by slice) until its last slice, when it joins the running batch. What
// each turn prefills is the pure policy's (`planPrefillSlices`, libs/generation).
import { type PrefillChunking, isChunkedPrompt, planPrefillSlices } from '@modelgate/generation';
import { type DecodeBatch, type StepLogits } from './decode-batch.js';
import { type Sequence } from './loop-sequence.js';

/** What the loop does with the outcome of each slice. */
export interface SliceOutcomes {
  /** The prompt's last slice ran: `logits` are its first token's, `batch` holds its cache. */
  last(sequence: Sequence, logits: StepLogits<number>, startedMs: number, batch: DecodeBatch<number>): void;
  /** Another slice ran, in `micros`. */
  slice(sequence: Sequence, micros: number): void;
  /** A slice failed: the sequence ends alone (it is no longer staged). */
  failed(sequence: Sequence, error: unknown): void;
}

export class StagedPrompts {
  /** In the order they joined. */
  private readonly staged = new Map<number, { batch: DecodeBatch<number>; done: number }>();

  constructor(
    private readonly chunking: PrefillChunking,
    /** Whether the decoder attends to an image: a captioner's prompt (its start token) is never sliced. */
    private readonly crossAttention: boolean,
    private readonly newBatch: () => DecodeBatch<number>,
  ) {}

  /** Whether `sequence`'s prompt is prefilled in slices. */
  takes(sequence: Sequence): boolean {
    return !this.crossAttention && isChunkedPrompt(sequence.add.promptIds.length, this.chunking);
  }

  /** Stages `sequence` (one that `takes`), its first slice at the next turn. */
  stage(sequence: Sequence): void {
    this.staged.set(sequence.add.seq, { batch: this.newBatch(), done: 0 });
  }

  /** Forgets a sequence that left (cancelled, past its deadline) before its last slice. */
  drop(seq: number): void {
    this.staged.delete(seq);
  }

  clear(): void {
    this.staged.clear();
  }

  /** Runs this turn's slices of the staged prompts (`running` has their sequences), in order. */
  async runTurn(running: ReadonlyMap<number, Sequence>, outcomes: SliceOutcomes): Promise<void> {
    const plan = planPrefillSlices(
      [...this.staged].map(([id, stage]) => ({
        id,
        done: stage.done,
        total: running.get(id)?.add.promptIds.length ?? 0,
      })),
      this.chunking,
    );
    for (const slice of plan) {
      const sequence = running.get(slice.id);
      const stage = this.staged.get(slice.id);
      if (!sequence || !stage) continue;
      const tokens = sequence.add.promptIds.slice(slice.start, slice.end);
      const started = performance.now();
      let logits: StepLogits<number>;
      try {
        logits =
          slice.start === 0
            ? await stage.batch.prefill([{ id: slice.id, promptIds: tokens }])
            : await stage.batch.extend(tokens);
      } catch (error) {
        this.staged.delete(slice.id);
        outcomes.failed(sequence, error);
        continue;
      }
      stage.done = slice.end;
      if (slice.last) {
        this.staged.delete(slice.id);
        outcomes.last(sequence, logits, started, stage.batch);
      } else {
        outcomes.slice(sequence, Math.round((performance.now() - started) * 1000));
      }
    }
  }
}
