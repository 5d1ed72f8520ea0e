// The logit processors that read a sequence's history, applied to one row of logits before the
// sampler picks (the order Hugging Face's generate and vLLM apply them in):
// - repetition_penalty (Hugging Face, CTRL's rule): every token already in the prompt or the
//   generated text has its logit divided by the penalty when positive, multiplied when negative;
// - frequency_penalty and presence_penalty (OpenAI): each token's logit minus frequency × its
//   count in the generated text, minus presence once it occurs there at all;
// - no_repeat_ngram_size (Hugging Face): no token that would complete an n-gram already in the
//   prompt or the generated text;
// - min_new_tokens (Hugging Face): no end-of-sequence token before that many were generated.
// Pure: no I/O.

/** The history-reading processors of one sequence; the neutral value of each turns it off. */
export interface Penalties {
  /** > 0; 1 = off. */
  repetitionPenalty: number;
  /** OpenAI's, in [-2, 2]; 0 = off. */
  presencePenalty: number;
  /** OpenAI's, in [-2, 2]; 0 = off. */
  frequencyPenalty: number;
  /** >= 0; 0 = off. */
  noRepeatNgramSize: number;
  /** >= 0; 0 = off. */
  minNewTokens: number;
}

/** Every processor off. */
export const NO_PENALTIES: Penalties = {
  repetitionPenalty: 1,
  presencePenalty: 0,
  frequencyPenalty: 0,
  noRepeatNgramSize: 0,
  minNewTokens: 0,
};

/** Whether any processor of `penalties` acts. */
export function hasPenalties(penalties: Penalties): boolean {
  return (
    penalties.repetitionPenalty !== 1 ||
    penalties.presencePenalty !== 0 ||
    penalties.frequencyPenalty !== 0 ||
    penalties.noRepeatNgramSize > 0 ||
    penalties.minNewTokens > 0
  );
}

/** What the processors read of a sequence. */
export interface SequenceHistory {
  promptIds: readonly number[];
  generatedIds: readonly number[];
  eosIds: ReadonlySet<number>;
}

/** Applies `penalties` to `row` (one sequence's logits over the vocabulary), in place. */
export function applyPenalties(row: Float32Array, penalties: Penalties, history: SequenceHistory): void {
  const { promptIds, generatedIds } = history;
  const vocab = row.length;
  if (penalties.repetitionPenalty !== 1) {
    const penalty = penalties.repetitionPenalty;
    const seen = new Set<number>();
    for (const ids of [promptIds, generatedIds]) for (const id of ids) seen.add(id);
    for (const id of seen) {
      if (id < 0 || id >= vocab) continue;
      const logit = row[id]!;
      row[id] = logit < 0 ? logit * penalty : logit / penalty;
    }
  }
  if (penalties.frequencyPenalty !== 0 || penalties.presencePenalty !== 0) {
    const counts = new Map<number, number>();
    for (const id of generatedIds) counts.set(id, (counts.get(id) ?? 0) + 1);
    for (const [id, count] of counts) {
      if (id < 0 || id >= vocab) continue;
      row[id] = row[id]! - penalties.frequencyPenalty * count - penalties.presencePenalty;
    }
  }
  if (penalties.noRepeatNgramSize > 0) {
    for (const id of bannedNgramTokens([...promptIds, ...generatedIds], penalties.noRepeatNgramSize)) {
      if (id >= 0 && id < vocab) row[id] = -Infinity;
    }
  }
  if (generatedIds.length < penalties.minNewTokens) {
    for (const id of history.eosIds) if (id >= 0 && id < vocab) row[id] = -Infinity;
  }
}

/**
 * The tokens that would complete, after `ids`, an n-gram of size `n` already in `ids`: those
 * that followed an earlier occurrence of its last n - 1 tokens. None while `ids` is shorter than n - 1.
 */
export function bannedNgramTokens(ids: readonly number[], n: number): Set<number> {
  const banned = new Set<number>();
  if (n < 1 || ids.length + 1 < n) return banned;
  const prefixStart = ids.length - (n - 1);
  for (let start = 0; start + n <= ids.length; start += 1) {
    let matches = true;
    for (let k = 0; k < n - 1 && matches; k += 1) matches = ids[start + k] === ids[prefixStart + k];
    if (matches) banned.add(ids[start + n - 1]!);
  }
  return banned;
}
