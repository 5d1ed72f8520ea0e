// Chunked prefill (pure): a long prompt is prefilled in slices between the decode steps of the
// running batch, so one arriving prompt delays each running sequence's next token by one slice,
// not by its whole length. A loop turn gives staged prompts at most `chunkTokens` prompt tokens,
// first staged first; a prompt no longer than that is prefilled whole, as before.

/** How a decode loop slices long prompts. */
export interface PrefillChunking {
  /** Most prompt tokens prefilled per loop turn for prompts longer than it; 0: none is sliced. */
  chunkTokens: number;
}

/** The default slice: short next to GPT-2's 1024 positions, long enough to keep prefill efficient. */
export const DEFAULT_PREFILL_CHUNK_TOKENS = 256;

/** Whether a prompt of `promptTokens` is prefilled in slices. */
export function isChunkedPrompt(promptTokens: number, chunking: PrefillChunking): boolean {
  return chunking.chunkTokens > 0 && promptTokens > chunking.chunkTokens;
}

/** A prompt being prefilled in slices: `done` of its `total` tokens are in its cache. */
export interface StagedPrompt<Id> {
  id: Id;
  done: number;
  total: number;
}

/** One slice to prefill this turn: tokens [start, end) of the prompt; `last` completes it. */
export interface PrefillSlice<Id> {
  id: Id;
  start: number;
  end: number;
  last: boolean;
}

/**
 * This turn's slices: the staged prompts in order, each taking what is left of the turn's
 * `chunkTokens`, so a turn never prefills more than that however many prompts are staged, and a
 * prompt staged first is finished first. Empty when nothing is staged.
 */
export function planPrefillSlices<Id>(
  staged: readonly StagedPrompt<Id>[],
  chunking: PrefillChunking,
): PrefillSlice<Id>[] {
  const slices: PrefillSlice<Id>[] = [];
  let budget = chunking.chunkTokens;
  for (const prompt of staged) {
    if (budget <= 0) break;
    const end = Math.min(prompt.total, prompt.done + budget);
    if (end <= prompt.done) continue;
    slices.push({ id: prompt.id, start: prompt.done, end, last: end === prompt.total });
    budget -= end - prompt.done;
  }
  return slices;
}
