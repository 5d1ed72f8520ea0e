// The KV cache of a decoder's running sequences as blocks of rows, and how rows of blocks are
// gathered into one block (a join, a leave, a sequence run alone and merged back).
import { type DecoderLayout } from './decoder-layout.js';

/** Cache of some sequences: one tensor per layer and part, [rows, heads, width, headSize]. */
export interface CacheBlock {
  /** Cached tokens per row (each ≤ width), right-aligned in the row. */
  lengths: number[];
  width: number;
  /** layer 0 key, layer 0 value, layer 1 key, ... */
  tensors: Float32Array[];
}

/** Names of the cache inputs and outputs, in CacheBlock.tensors order. */
export function cacheNames(layout: DecoderLayout): { past: string[]; present: string[] } {
  const past: string[] = [];
  const present: string[] = [];
  for (let layer = 0; layer < layout.layers; layer++) {
    for (const part of ['key', 'value']) {
      past.push(`past_key_values.${layer}.${part}`);
      present.push(`present.${layer}.${part}`);
    }
  }
  return { past, present };
}

/**
 * Rows `rows` of `blocks` (block index, row index) stacked in that order into one block as wide
 * as its longest sequence; each sequence keeps its last `length` positions, padding is zeros.
 */
export function gatherCache(
  layout: DecoderLayout,
  blocks: readonly CacheBlock[],
  rows: ReadonlyArray<readonly [block: number, row: number]>,
): CacheBlock {
  const { heads, headSize } = layout;
  const lengths = rows.map(([b, r]) => blocks[b]?.lengths[r] ?? 0);
  const width = Math.max(0, ...lengths);
  const count = layout.layers * 2;
  const tensors: Float32Array[] = [];
  for (let t = 0; t < count; t++) {
    const out = new Float32Array(rows.length * heads * width * headSize);
    rows.forEach(([b, r], dst) => {
      const block = blocks[b];
      const source = block?.tensors[t];
      if (!block || !source) throw new Error(`no cache row ${r} in block ${b}`);
      const length = block.lengths[r] ?? 0;
      for (let h = 0; h < heads; h++) {
        const from = ((r * heads + h) * block.width + block.width - length) * headSize;
        const to = ((dst * heads + h) * width + width - length) * headSize;
        out.set(source.subarray(from, from + length * headSize), to);
      }
    });
    tensors.push(out);
  }
  return { lengths, width, tensors };
}
