// (question, context) → model rows. A context longer than a window is cut into overlapping windows
// exactly as Hugging Face tokenizers cut a pair with `truncation: 'only_second'`, `max_length`
// and `stride` and return the overflowing parts (what transformers' QA pipeline feeds its model):
// every window holds the whole question and up to `capacity` context tokens, and each window
// after the first repeats the last `stride` context tokens of the one before it.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type EncodedText } from '../tokenizer/special-tokens-template.js';

/** Context tokens [from, to) that one window holds. */
export interface TokenRange {
  from: number;
  to: number;
}

/** The rows of one (question, context) pair. */
export interface QuestionWindows {
  /** One row per window: [CLS] question [SEP] context part [SEP] for BERT, with segment ids. */
  rows: EncodedText[];
  /** The context tokens of each row, in the same order. */
  ranges: TokenRange[];
  /** Position of the first context token in every row (after the question and its special tokens). */
  contextStart: number;
  /** Whether position 0 of every row is a special token ([CLS]) rather than the question's first token. */
  leadingSpecial: boolean;
}

/** The special-token template of a tokenizer, as {@link buildQuestionWindows} needs it. */
export interface PairTemplate {
  addSpecialTokens(first: readonly number[], second?: readonly number[]): EncodedText;
  specialTokenCount(pair: boolean): number;
}

/** Window sizes, in tokens. */
export interface QuestionWindowOptions {
  /** Tokens per row, special tokens included (the pipeline's max_seq_len). */
  maxSeqLen: number;
  /** Context tokens shared by consecutive windows. */
  docStride: number;
  /**
   * The question is cut to this many tokens; undefined keeps it whole, as Python's pipeline does
   * with a fast tokenizer (only its slow path cuts, to max_question_len).
   */
  maxQuestionLen?: number | undefined;
  /** Names the pair in errors: `question` or `question[i]`. */
  field: string;
  /** Most windows this pair may take (what is left of the request's rows); more are refused before any is built. */
  maxWindows?: number;
}

/** A pair's windows would exceed what the request may hold (buildQuestionWindows' maxWindows). */
export class TooManyWindows extends Error {
  constructor(readonly windows: number) {
    super(`${windows} windows`);
  }
}

/** The pipeline's default stride for a window length: min(maxSeqLen / 2, 128). */
export function defaultDocStride(maxSeqLen: number): number {
  return Math.min(Math.floor(maxSeqLen / 2), 128);
}

/**
 * Ranges of a context of `length` tokens cut into windows of `capacity` tokens, each starting
 * `capacity - stride` tokens after the one before, until one reaches the end. A context that fits
 * (an empty one too) is one window. Requires stride < capacity when the context does not fit.
 */
export function planContextWindows(length: number, capacity: number, stride: number): TokenRange[] {
  if (length <= capacity) return [{ from: 0, to: length }];
  if (capacity < 1 || stride >= capacity) {
    throw new RangeError(`stride ${stride} must be less than the window capacity ${capacity}`);
  }
  const ranges: TokenRange[] = [];
  for (let from = 0; ; from += capacity - stride) {
    const to = Math.min(from + capacity, length);
    ranges.push({ from, to });
    if (to === length) return ranges;
  }
}

// Never a token id: marks where the template puts each sequence.
const FIRST_PLACEHOLDER = -1;
const SECOND_PLACEHOLDER = -2;

/**
 * The rows of one pair. Throws INVALID_ARGUMENT naming the field when the question leaves no room
 * for context in a row, or when a context that needs several windows gets a doc_stride that is not
 * less than the context tokens a window holds (the tokenizer refuses such a stride too).
 */
export function buildQuestionWindows(
  questionIds: readonly number[],
  contextIds: readonly number[],
  template: PairTemplate,
  options: QuestionWindowOptions,
): QuestionWindows {
  const { maxSeqLen, docStride, maxQuestionLen, field } = options;
  const question = maxQuestionLen === undefined ? questionIds : questionIds.slice(0, maxQuestionLen);
  const capacity = maxSeqLen - question.length - template.specialTokenCount(true);
  if (capacity < 1) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `${field}: its ${question.length} tokens leave no room for the context in a window of ${maxSeqLen} tokens; ` +
        'shorten it, or cut it with parameters.max_question_len',
      { field },
    );
  }
  if (docStride > maxSeqLen || (contextIds.length > capacity && docStride >= capacity)) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `parameters.doc_stride: ${docStride} must be less than the ${capacity} context tokens a window of ` +
        `${maxSeqLen} tokens holds beside ${field}`,
      { field: 'parameters.doc_stride' },
    );
  }
  const ranges = planContextWindows(contextIds.length, capacity, docStride);
  if (options.maxWindows !== undefined && ranges.length > options.maxWindows) {
    throw new TooManyWindows(ranges.length);
  }
  const layout = template.addSpecialTokens([FIRST_PLACEHOLDER], [SECOND_PLACEHOLDER]).ids;
  return {
    rows: ranges.map(({ from, to }) => template.addSpecialTokens(question, contextIds.slice(from, to))),
    ranges,
    contextStart: layout.indexOf(SECOND_PLACEHOLDER) - 1 + question.length,
    leadingSpecial: layout[0] !== FIRST_PLACEHOLDER,
  };
}
