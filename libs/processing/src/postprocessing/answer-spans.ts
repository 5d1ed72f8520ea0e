// start_logits / end_logits of a pair's windows → answers, as transformers' (Python) question-
// answering pipeline decodes them (postprocess / select_starts_ends / decode_spans, v4.53):
//  1. per window, every position that is neither a context token nor the leading [CLS] gets logit
//     -10000, and each of start and end is softmaxed over the row;
//  2. with handle_impossible_answer, the null score is the least start[0]·end[0] over the windows;
//  3. position 0 is zeroed, and the window's spans (start ≤ end, at most max_answer_len tokens,
//     both ends on context tokens) are scored start·end; its top_k are kept;
//  4. a span widens to the words of its first and last tokens (align_to_words), within the window;
//  5. spans with the same text (case-insensitively) across windows add up their scores;
//  6. the null answer joins, and the top_k by score are returned, best first.
// Spans never start or end on [CLS]: "no answer" exists only through handle_impossible_answer.
import { type CharSpan } from '../tokenizer/token-offsets.js';

/** One window of a pair, as {@link decodeAnswerSpans} reads its logits. */
export interface AnswerWindow {
  /** The window's row in the logits. */
  row: number;
  /** Position of the window's first context token in its row. */
  contextStart: number;
  /** Context tokens [from, to) the window holds. */
  from: number;
  to: number;
  /** Whether row position 0 is a special token ([CLS]) that stays in the softmax. */
  leadingSpecial: boolean;
}

/** What is known of each context token: its characters and its word. */
export interface ContextTokens {
  /** Code-point span of each context token in the context; undefined where it cannot be placed. */
  offsets: readonly (CharSpan | undefined)[];
  /** Pre-tokenizer word of each context token; undefined keeps the token's own offsets. */
  wordIds: readonly (number | undefined)[];
}

/** Span logits of every row of a request, [rows, sequence] row-major. */
export interface SpanLogits {
  start: ArrayLike<number>;
  end: ArrayLike<number>;
  /** Row length (the padded sequence length). */
  sequence: number;
}

/** How answers are chosen. */
export interface AnswerSpanOptions {
  topK: number;
  maxAnswerLen: number;
  handleImpossibleAnswer: boolean;
}

/** One answer. */
export interface AnswerSpan {
  answer: string;
  score: number;
  start: number;
  end: number;
}

// The Python pipeline's mask value (not -Infinity): a row of masked logits still softmaxes.
const MASKED_LOGIT = -10000;
// min_null_score's starting value in the Python pipeline.
const NO_NULL_SCORE = 1000000;

interface ScoredSpan {
  start: number;
  end: number;
  score: number;
}

/** Softmax of `logits[offset, offset + length)` with every position outside `keep` set to MASKED_LOGIT. */
function maskedSoftmax(
  logits: ArrayLike<number>,
  offset: number,
  length: number,
  keep: (position: number) => boolean,
): Float64Array {
  const probs = new Float64Array(length);
  let max = -Infinity;
  for (let i = 0; i < length; i++) {
    const value = keep(i) ? (logits[offset + i] ?? MASKED_LOGIT) : MASKED_LOGIT;
    probs[i] = value;
    if (value > max) max = value;
  }
  let sum = 0;
  for (let i = 0; i < length; i++) {
    const e = Math.exp((probs[i] ?? 0) - max);
    probs[i] = e;
    sum += e;
  }
  for (let i = 0; i < length; i++) probs[i] = (probs[i] ?? 0) / sum;
  return probs;
}

/** The best `topK` spans of one window by score (ties: earlier start, then earlier end). */
function bestSpans(
  starts: Float64Array,
  ends: Float64Array,
  first: number,
  last: number,
  options: AnswerSpanOptions,
): ScoredSpan[] {
  const best: ScoredSpan[] = [];
  for (let s = first; s <= last; s++) {
    const ps = starts[s] ?? 0;
    const stop = Math.min(last, s + options.maxAnswerLen - 1);
    for (let e = s; e <= stop; e++) {
      const score = ps * (ends[e] ?? 0);
      if (best.length === options.topK && score <= (best[best.length - 1]?.score ?? 0)) continue;
      let at = best.length;
      while (at > 0 && (best[at - 1]?.score ?? 0) < score) at--;
      best.splice(at, 0, { start: s, end: e, score });
      if (best.length > options.topK) best.pop();
    }
  }
  return best;
}

/** Character span of context tokens [first, last], widened to their words within [from, to). */
function characterSpan(
  tokens: ContextTokens,
  first: number,
  last: number,
  from: number,
  to: number,
): CharSpan | undefined {
  let begin = first;
  let finish = last;
  const startWord = tokens.wordIds[first];
  const endWord = tokens.wordIds[last];
  if (startWord !== undefined) while (begin > from && tokens.wordIds[begin - 1] === startWord) begin--;
  if (endWord !== undefined) while (finish < to - 1 && tokens.wordIds[finish + 1] === endWord) finish++;
  const start = tokens.offsets[begin]?.[0];
  const end = tokens.offsets[finish]?.[1];
  return start === undefined || end === undefined ? undefined : [start, end];
}

/**
 * The answers of one (question, context) pair from the span logits of its windows, best first,
 * at most `topK`. Offsets count code points of `context`; `answer` is the context between them.
 * A span whose tokens have no offsets is left out.
 */
export function decodeAnswerSpans(
  logits: SpanLogits,
  windows: readonly AnswerWindow[],
  context: string,
  tokens: ContextTokens,
  options: AnswerSpanOptions,
): AnswerSpan[] {
  const characters = Array.from(context);
  const answers: AnswerSpan[] = [];
  // Answers by their lower-cased text: one lookup each, however many windows × topK there are.
  const byText = new Map<string, AnswerSpan>();
  let nullScore = NO_NULL_SCORE;
  for (const window of windows) {
    const count = window.to - window.from;
    const contextEnd = window.contextStart + count;
    const keep = (i: number) =>
      (i === 0 && window.leadingSpecial) || (i >= window.contextStart && i < contextEnd);
    const offset = window.row * logits.sequence;
    const starts = maskedSoftmax(logits.start, offset, logits.sequence, keep);
    const ends = maskedSoftmax(logits.end, offset, logits.sequence, keep);
    if (options.handleImpossibleAnswer) nullScore = Math.min(nullScore, (starts[0] ?? 0) * (ends[0] ?? 0));
    starts[0] = 0;
    ends[0] = 0;
    if (count === 0) continue;
    for (const span of bestSpans(starts, ends, window.contextStart, contextEnd - 1, options)) {
      const first = window.from + span.start - window.contextStart;
      const last = window.from + span.end - window.contextStart;
      const chars = characterSpan(tokens, first, last, window.from, window.to);
      if (chars === undefined) continue;
      const text = characters.slice(chars[0], chars[1]).join('');
      const key = text.toLowerCase();
      const same = byText.get(key);
      if (same) same.score += span.score;
      else {
        const answer = { answer: text, score: span.score, start: chars[0], end: chars[1] };
        answers.push(answer);
        byText.set(key, answer);
      }
    }
  }
  if (options.handleImpossibleAnswer) answers.push({ answer: '', score: nullScore, start: 0, end: 0 });
  // Array.prototype.sort is stable: equal scores keep window order, as Python's sorted().
  return answers.sort((a, b) => b.score - a.score).slice(0, options.topK);
}

/** The answers of every pair of a request, from the span logits of all its rows. */
export function answerQuestions(
  logits: SpanLogits,
  pairs: readonly { context: string; tokens: ContextTokens; windows: readonly AnswerWindow[] }[],
  options: AnswerSpanOptions,
): AnswerSpan[][] {
  return pairs.map((pair) => decodeAnswerSpans(logits, pair.windows, pair.context, pair.tokens, options));
}
