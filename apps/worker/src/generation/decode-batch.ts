/**
 * The running batch of a decoder with a KV cache, independent of the model and of onnxruntime:
 * it builds the feeds of each step and keeps the cache between steps, and a `runStep` function
 * (onnxruntime on the session thread; a fake in unit tests) computes them.
 *
 * Layout: the batch's cache is one [batch, heads, width, head_size] tensor per layer and part
 * (key, value). A sequence with `length` cached tokens holds the LAST `length` positions of its
 * row; the positions before them are left padding, hidden by a 0 in `attention_mask`, so
 * sequences of different lengths decode together exactly. Each step feeds every sequence's one
 * pending token at position_ids = its length; `present` (width + 1) becomes the next `past` as it
 * is while the membership does not change. Joining sequences are prefilled on their own and
 * merged in (the narrower side gains left padding); leaving ones are cut out and the width
 * shrinks to the longest remaining sequence. With cross-attention (image-to-text) each member
 * keeps its image's encoder states, fed in row order as `encoder_hidden_states` at every step.
 * A merged decoder also gets `use_cache_branch`: false with an empty past (a prefill), else true.
 */
import { type CacheBlock, cacheNames, gatherCache } from './cache-block.js';
import { type DecoderLayout, USE_CACHE_BRANCH } from './decoder-layout.js';
import { type EncoderStates, EncoderRows } from './encoder-states.js';

/** A tensor fed to or read from a step (OIP datatype names; WorkerTensor-compatible). */
export interface StepTensor {
  datatype: string;
  dims: number[];
  /** INT64: BigInt64Array; FP32: Float32Array; BOOL: Uint8Array of 0/1. */
  data: BigInt64Array | Float32Array | Uint8Array;
}

/** Feeds of one step, by input name. */
export type StepFeeds = Record<string, StepTensor>;

/** Outputs of one step, by output name (`logits`, `present.N.key/value`). */
export type StepOutputs = Record<string, { dims: readonly number[]; data: unknown }>;

/** Runs the decoder once on `feeds`. */
export type RunStep = (feeds: StepFeeds) => Promise<StepOutputs>;

/** The next-token logits of each sequence after a step: `vocabSize` floats from `offsets.get(id)`. */
export interface StepLogits<Id> {
  logits: Float32Array;
  vocabSize: number;
  offsets: Map<Id, number>;
}

/** A sequence to prefill: its prompt, and its image's encoder states when the decoder attends to them. */
export interface Joiner<Id> {
  id: Id;
  promptIds: readonly number[];
  encoderStates?: EncoderStates | undefined;
}

/** The running sequences of one decoder session and their cache. */
export class DecodeBatch<Id> {
  private members: Id[] = [];
  private cache: CacheBlock;
  /** Cross-attention only: the members' encoder states, in row order. */
  private encoder: EncoderRows | undefined;
  private readonly names: { past: string[]; present: string[] };

  constructor(
    private readonly layout: DecoderLayout,
    private readonly runStep: RunStep,
  ) {
    this.names = cacheNames(layout);
    this.cache = { lengths: [], width: 0, tensors: this.names.past.map(() => new Float32Array(0)) };
    this.encoder = layout.crossAttention ? new EncoderRows(layout.crossAttention) : undefined;
  }

  /** The sequences in the batch, in row order. */
  get ids(): readonly Id[] {
    return this.members;
  }

  /** Sequences in the batch. */
  get size(): number {
    return this.members.length;
  }

  /** Padded cache width (positions per row). */
  get width(): number {
    return this.cache.width;
  }

  /** Tokens in `id`'s cache (its prompt and fed tokens), or undefined when it is not a member. */
  lengthOf(id: Id): number | undefined {
    const row = this.members.indexOf(id);
    return row < 0 ? undefined : this.cache.lengths[row];
  }

  /**
   * Prefills `joiners` together (prompts left-padded to the longest), merges them into the batch
   * (the next step feeds each its first generated token) and returns their next-token logits.
   * With cross-attention every joiner brings its encoder states, as many as the members'.
   */
  async prefill(joiners: ReadonlyArray<Joiner<Id>>): Promise<StepLogits<Id>> {
    const rows = joiners.length;
    const width = Math.max(...joiners.map((j) => j.promptIds.length));
    if (rows === 0 || width < 1) throw new Error('prefill needs at least one non-empty prompt');
    const { crossAttention } = this.layout;
    const joining = crossAttention
      ? EncoderRows.of(
          crossAttention,
          joiners.map((j) => j.encoderStates),
        )
      : undefined;
    if (joining) this.encoder?.checkJoin(joining);
    const ids = new BigInt64Array(rows * width);
    const mask = new BigInt64Array(rows * width);
    const positions = new BigInt64Array(rows * width).fill(1n); // padding: as transformers fills it
    joiners.forEach(({ promptIds }, row) => {
      const pad = width - promptIds.length;
      promptIds.forEach((token, i) => {
        ids[row * width + pad + i] = BigInt(token);
        mask[row * width + pad + i] = 1n;
        positions[row * width + pad + i] = BigInt(i);
      });
    });
    const empty = this.emptyCache(rows);
    const outputs = await this.runStep(this.feeds(ids, mask, positions, [rows, width], empty, joining));
    const logits = this.readLogits(
      outputs,
      joiners.map((j) => j.id),
    );
    const fresh: CacheBlock = {
      lengths: joiners.map((j) => j.promptIds.length),
      width,
      tensors: this.readPresent(outputs, rows, width),
    };
    if (this.members.length === 0) {
      this.cache = fresh; // nothing to merge with: the prefill's present is the batch's past
    } else {
      const current = this.members.map((_, row) => [0, row] as const);
      const joining = joiners.map((_, row) => [1, row] as const);
      this.cache = gatherCache(this.layout, [this.cache, fresh], [...current, ...joining]);
    }
    this.members = [...this.members, ...joiners.map((j) => j.id)];
    if (joining) this.encoder?.absorb(joining);
    return logits;
  }

  /** One decode step: feeds each member's pending token (`tokens` must name every member). */
  async step(tokens: ReadonlyMap<Id, number>): Promise<StepLogits<Id>> {
    const rows = this.members.length;
    if (rows === 0) throw new Error('a decode step needs at least one sequence');
    const { width, lengths } = this.cache;
    const ids = new BigInt64Array(rows);
    const mask = new BigInt64Array(rows * (width + 1));
    const positions = new BigInt64Array(rows);
    this.members.forEach((id, row) => {
      const token = tokens.get(id);
      if (token === undefined) throw new Error(`no pending token for sequence ${String(id)}`);
      const length = lengths[row] ?? 0;
      ids[row] = BigInt(token);
      positions[row] = BigInt(length);
      mask.fill(1n, row * (width + 1) + width - length, (row + 1) * (width + 1));
    });
    const outputs = await this.runStep(this.feeds(ids, mask, positions, [rows, 1], this.cache, this.encoder));
    const logits = this.readLogits(outputs, this.members);
    // present is [rows, heads, width + 1, headSize] with every sequence still right-aligned.
    this.cache = {
      lengths: lengths.map((length) => length + 1),
      width: width + 1,
      tensors: this.readPresent(outputs, rows, width + 1),
    };
    return logits;
  }

  /**
   * Feeds more prompt tokens to the batch's only sequence (a prompt prefilled in slices, after
   * its first slice's `prefill`): its cache grows by as many positions, and the logits after the
   * last of them come back. Not for cross-attention (a captioner's prompt is its start token).
   */
  async extend(tokens: readonly number[]): Promise<StepLogits<Id>> {
    if (this.members.length !== 1) throw new Error('a prompt slice extends a batch of one sequence');
    if (this.encoder) throw new Error('a decoder with cross-attention prefills its prompt whole');
    const count = tokens.length;
    if (count === 0) throw new Error('a prompt slice needs at least one token');
    const { width, lengths } = this.cache;
    const length = lengths[0] ?? 0;
    const ids = BigInt64Array.from(tokens, (token) => BigInt(token));
    const mask = new BigInt64Array(width + count).fill(1n, width - length);
    const positions = BigInt64Array.from({ length: count }, (_, i) => BigInt(length + i));
    const outputs = await this.runStep(this.feeds(ids, mask, positions, [1, count], this.cache, undefined));
    const logits = this.readLogits(outputs, this.members);
    this.cache = {
      lengths: [length + count],
      width: width + count,
      tensors: this.readPresent(outputs, 1, width + count),
    };
    return logits;
  }

  /** Takes `leaving` out of the batch; the cache shrinks to the longest remaining sequence. */
  remove(leaving: Iterable<Id>): void {
    const gone = new Set(leaving);
    const rows: Array<readonly [number, number]> = [];
    this.members.forEach((id, row) => {
      if (!gone.has(id)) rows.push([0, row]);
    });
    if (rows.length === this.members.length) return;
    this.cache = gatherCache(this.layout, [this.cache], rows);
    this.members = rows.map(([, row]) => this.members[row]!);
    this.encoder = this.encoder?.pick(rows.map(([, row]) => row));
  }

  /** Takes `id` out into a batch of its own, its cache row with it (to run it alone). */
  detach(id: Id): DecodeBatch<Id> {
    const row = this.members.indexOf(id);
    if (row < 0) throw new Error(`sequence ${String(id)} is not in the batch`);
    const alone = new DecodeBatch<Id>(this.layout, this.runStep);
    alone.cache = gatherCache(this.layout, [this.cache], [[0, row]]);
    alone.members = [id];
    alone.encoder = this.encoder?.pick([row]);
    this.remove([id]);
    return alone;
  }

  /** Moves `other`'s sequences and their cache in, after this batch's own rows. */
  absorb(other: DecodeBatch<Id>): void {
    if (other.members.length === 0) return;
    if (other.encoder) this.encoder?.absorb(other.encoder);
    if (this.members.length === 0) {
      this.cache = other.cache;
    } else {
      const rows = [
        ...this.members.map((_, row) => [0, row] as const),
        ...other.members.map((_, row) => [1, row] as const),
      ];
      this.cache = gatherCache(this.layout, [this.cache, other.cache], rows);
    }
    this.members = [...this.members, ...other.members];
    other.members = [];
    other.cache = other.emptyCache(0);
  }

  private emptyCache(rows: number): CacheBlock {
    return {
      lengths: new Array<number>(rows).fill(0),
      width: 0,
      tensors: this.names.past.map(() => new Float32Array(0)),
    };
  }

  private feeds(
    ids: BigInt64Array,
    mask: BigInt64Array,
    positions: BigInt64Array,
    [rows, tokens]: [number, number],
    past: CacheBlock,
    encoder: EncoderRows | undefined,
  ): StepFeeds {
    const feeds: StepFeeds = {
      input_ids: { datatype: 'INT64', dims: [rows, tokens], data: ids },
      attention_mask: { datatype: 'INT64', dims: [rows, past.width + tokens], data: mask },
    };
    if (this.layout.hasPositionIds)
      feeds.position_ids = { datatype: 'INT64', dims: [rows, tokens], data: positions };
    if (encoder) feeds.encoder_hidden_states = encoder.feed();
    // transformers.js' rule: the with-past branch exactly when the past is not empty.
    if (this.layout.useCacheBranch)
      feeds[USE_CACHE_BRANCH] = { datatype: 'BOOL', dims: [1], data: Uint8Array.of(past.width > 0 ? 1 : 0) };
    const dims = [rows, this.layout.heads, past.width, this.layout.headSize];
    this.names.past.forEach((name, t) => {
      feeds[name] = { datatype: 'FP32', dims: [...dims], data: past.tensors[t] ?? new Float32Array(0) };
    });
    return feeds;
  }

  private readLogits(outputs: StepOutputs, ids: readonly Id[]): StepLogits<Id> {
    const output = outputs.logits;
    if (!output || !(output.data instanceof Float32Array) || output.dims.length !== 3) {
      throw new Error('the decoder gave no FP32 logits [batch, sequence, vocab]');
    }
    const [, sequence = 0, vocabSize = 0] = output.dims;
    const offsets = new Map<Id, number>();
    ids.forEach((id, row) => offsets.set(id, (row * sequence + sequence - 1) * vocabSize));
    return { logits: output.data, vocabSize, offsets };
  }

  private readPresent(outputs: StepOutputs, rows: number, width: number): Float32Array[] {
    const expected = rows * this.layout.heads * width * this.layout.headSize;
    return this.names.present.map((name) => {
      const output = outputs[name];
      if (!output || !(output.data instanceof Float32Array) || output.data.length !== expected) {
        throw new Error(`the decoder gave no FP32 '${name}' of ${expected} values`);
      }
      return output.data;
    });
  }
}
