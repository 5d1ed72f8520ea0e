/**
 * The image encoder's side of image-to-text generation, independent of onnxruntime: joiners'
 * images are encoded together (one encoder run per image shape, normally one per prefill group)
 * and each sequence keeps its [sequence, hidden] states, which the decoder's cross-attention reads
 * as `encoder_hidden_states` [rows, sequence, hidden] at every step. The states never leave the
 * session thread; they are fed as they are (no mask: every row of a batch has as many states).
 */
import { type CrossAttention } from './decoder-layout.js';
import { type ImagePixels } from './generation-protocol.js';

/** One sequence's encoder states, [sequence, hidden] FP32: usually a view into its group's encoder output. */
export interface EncoderStates {
  readonly data: Float32Array;
  readonly sequence: number;
}

/** Runs the image encoder once on stacked images [n, C, H, W]; gives its `last_hidden_state` [n, S, H]. */
export type EncodeImages = (pixels: ImagePixels) => Promise<{ dims: readonly number[]; data: unknown }>;

/** An FP32 feed (a StepTensor). */
interface Fp32Feed {
  datatype: 'FP32';
  dims: number[];
  data: Float32Array;
}

/**
 * Encodes `images` (each [C, H, W]) with one encoder run per distinct shape, in order of first
 * appearance, and returns each image's states in the order of `images`. Images are stacked into
 * one [n, C, H, W] tensor (one alone is fed as it is); each image's states are a view into the
 * run's output.
 */
export async function encodeImages(
  images: readonly ImagePixels[],
  encode: EncodeImages,
  cross: CrossAttention,
): Promise<EncoderStates[]> {
  const states = new Array<EncoderStates>(images.length);
  const byShape = new Map<string, number[]>();
  images.forEach((image, index) => {
    const key = image.dims.join('x');
    byShape.set(key, [...(byShape.get(key) ?? []), index]);
  });
  for (const indices of byShape.values()) {
    const first = images[indices[0]!]!;
    const size = first.data.length;
    let data = first.data;
    if (indices.length > 1) {
      data = new Float32Array(indices.length * size);
      indices.forEach((index, row) => data.set(images[index]!.data, row * size));
    }
    const output = await encode({ data, dims: [indices.length, ...first.dims] });
    const [rows, sequence = 0, hidden] = output.dims;
    if (!(output.data instanceof Float32Array) || output.dims.length !== 3 || rows !== indices.length) {
      throw new Error(
        `the image encoder gave no FP32 last_hidden_state [${indices.length}, sequence, hidden]`,
      );
    }
    if (hidden !== cross.hidden || (cross.sequence >= 0 && sequence !== cross.sequence)) {
      throw new Error(
        `the image encoder gave states of dims ${JSON.stringify(output.dims)}; the decoder takes [${rows}, ${cross.sequence >= 0 ? cross.sequence : 'sequence'}, ${cross.hidden}]`,
      );
    }
    const rowSize = sequence * hidden;
    const out = output.data;
    indices.forEach((index, row) => {
      states[index] = { data: out.subarray(row * rowSize, (row + 1) * rowSize), sequence };
    });
  }
  return states;
}

/**
 * The encoder states of a batch's rows, in row order, and their stacked `encoder_hidden_states`
 * feed, built once after each change of the rows (not at every step).
 */
export class EncoderRows {
  private rows: EncoderStates[] = [];
  private stacked: Fp32Feed | undefined;

  constructor(private readonly cross: CrossAttention) {}

  /** The rows of `states` (each sequence's own), refused when one is missing or their lengths differ. */
  static of(cross: CrossAttention, states: ReadonlyArray<EncoderStates | undefined>): EncoderRows {
    const rows = new EncoderRows(cross);
    states.forEach((row, index) => {
      if (row === undefined) throw new Error(`sequence in row ${index} has no image encoder states`);
    });
    rows.append(states as EncoderStates[]);
    return rows;
  }

  /** Rows held. */
  get size(): number {
    return this.rows.length;
  }

  /** Throws unless `other`'s rows have as many states as these (rows of one batch must agree). */
  checkJoin(other: EncoderRows): void {
    const ours = this.rows[0]?.sequence;
    const theirs = other.rows[0]?.sequence;
    if (ours !== undefined && theirs !== undefined && ours !== theirs) {
      throw new Error(
        `an image of ${theirs} encoder states cannot decode beside images of ${ours}: send this model images of one size`,
      );
    }
  }

  /** A new set of the rows at `indices`, in that order (leaving or detached sequences). */
  pick(indices: readonly number[]): EncoderRows {
    const picked = new EncoderRows(this.cross);
    picked.rows = indices.map((index) => this.rows[index]!);
    if (indices.length === this.rows.length && indices.every((index, row) => index === row))
      picked.stacked = this.stacked;
    return picked;
  }

  /** Moves `other`'s rows in after these; `other` is left empty. */
  absorb(other: EncoderRows): void {
    this.checkJoin(other);
    if (this.rows.length === 0) this.stacked = other.stacked;
    else if (other.rows.length > 0) this.stacked = undefined;
    this.rows = [...this.rows, ...other.rows];
    other.rows = [];
    other.stacked = undefined;
  }

  /** `encoder_hidden_states` [rows, sequence, hidden]: the stacked rows, built once per change of them. */
  feed(): Fp32Feed {
    this.stacked ??= this.stack();
    return this.stacked;
  }

  private append(states: readonly EncoderStates[]): void {
    const sequence = states[0]?.sequence;
    for (const row of states) {
      if (row.sequence !== sequence) {
        throw new Error(
          `images of ${sequence} and ${row.sequence} encoder states cannot be prefilled together: send this model images of one size`,
        );
      }
      if (row.data.length !== row.sequence * this.cross.hidden) {
        throw new Error(
          `encoder states of ${row.data.length} values are not [${row.sequence}, ${this.cross.hidden}]`,
        );
      }
    }
    this.rows = [...this.rows, ...states];
    this.stacked = undefined;
  }

  /** The rows as one tensor: a view when they already lie in order in one buffer, else one copy. */
  private stack(): Fp32Feed {
    const sequence = this.rows[0]?.sequence ?? Math.max(0, this.cross.sequence);
    const dims = [this.rows.length, sequence, this.cross.hidden];
    const first = this.rows[0]?.data;
    const rowBytes = sequence * this.cross.hidden * Float32Array.BYTES_PER_ELEMENT;
    const inOrder =
      first !== undefined &&
      this.rows.every(
        ({ data }, row) =>
          data.buffer === first.buffer && data.byteOffset === first.byteOffset + row * rowBytes,
      );
    if (inOrder) {
      return {
        datatype: 'FP32',
        dims,
        data: new Float32Array(first.buffer, first.byteOffset, (this.rows.length * rowBytes) / 4),
      };
    }
    const data = new Float32Array(this.rows.length * sequence * this.cross.hidden);
    this.rows.forEach((row, index) => data.set(row.data, index * sequence * this.cross.hidden));
    return { datatype: 'FP32', dims, data };
  }
}
