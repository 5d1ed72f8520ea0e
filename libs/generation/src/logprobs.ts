// Log-probabilities of generated tokens, as OpenAI's `logprobs` reports them: the log-softmax of
// the model's logits at the step that produced the token, before any processor (penalties) or the
// temperature changed them (vLLM's default, "raw" logprobs), and the step's most likely tokens.

/** Most alternatives a step reports (OpenAI's top_logprobs limit). */
export const MAX_TOP_LOGPROBS = 20;

/** One generated token's log-probability and the step's most likely tokens, most likely first. */
export interface TokenLogprob {
  logprob: number;
  top: { id: number; logprob: number }[];
}

/**
 * The log-softmax of logits[offset .. offset+vocabSize) at `token`, and the `top` highest ids
 * (lowest id first on ties) with theirs. A row with no finite logit gives -Infinity for every
 * token that is not +Infinity; NaN logits count as -Infinity.
 */
export function tokenLogprob(
  logits: Float32Array,
  offset: number,
  vocabSize: number,
  token: number,
  top: number,
): TokenLogprob {
  const end = offset + vocabSize;
  let max = -Infinity;
  for (let i = offset; i < end; i += 1) if (logits[i]! > max) max = logits[i]!;
  let of: (id: number) => number;
  if (Number.isFinite(max)) {
    let sum = 0;
    for (let i = offset; i < end; i += 1) {
      const logit = logits[i]!;
      if (logit > -Infinity) sum += Math.exp(logit - max);
    }
    const norm = max + Math.log(sum);
    of = (id) => {
      const logit = logits[offset + id]!;
      return logit > -Infinity ? logit - norm : -Infinity;
    };
  } else {
    // No finite logit: the +Infinity ones (if any) share the whole probability.
    let infinite = 0;
    for (let i = offset; i < end; i += 1) if (logits[i] === Infinity) infinite += 1;
    of = (id) => (logits[offset + id] === Infinity ? -Math.log(infinite) : -Infinity);
  }
  return {
    logprob: of(token),
    top: topIds(logits, offset, vocabSize, Math.min(top, vocabSize)).map((id) => ({ id, logprob: of(id) })),
  };
}

/** The k highest ids of the row, most likely first, lowest id first on ties (k is small). */
function topIds(logits: Float32Array, offset: number, vocabSize: number, k: number): number[] {
  const ids: number[] = [];
  if (k <= 0) return ids;
  const value = (id: number): number => {
    const logit = logits[offset + id]!;
    return logit > -Infinity ? logit : -Infinity;
  };
  for (let id = 0; id < vocabSize; id += 1) {
    const logit = value(id);
    if (ids.length === k && !(logit > value(ids[k - 1]!))) continue;
    // Insert after every kept id at least as likely (ties keep the lower id first).
    let at = ids.length;
    while (at > 0 && value(ids[at - 1]!) < logit) at -= 1;
    ids.splice(at, 0, id);
    if (ids.length > k) ids.pop();
  }
  return ids;
}
