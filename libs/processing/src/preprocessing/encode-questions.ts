// Question-answering requests → model rows: every pair's windows (question-windows.ts) of every
// pair, packed as the rows of ONE tensor batch, plus what decoding needs to map each row's span
// logits back to characters of its context.
import { ErrorCode, MAX_QUESTION_ANSWERING_SEQ_LEN, ModelgateError } from '@modelgate/contracts';
import { type AnswerWindow, type ContextTokens } from '../postprocessing/answer-spans.js';
import { type TextTokenizer } from '../tokenizer/text-tokenizer.js';
import { type Int64Tensor, checkInputNames, packRows } from './encode-inputs.js';
import { type QuestionAnsweringRequest } from './question-answering-request.js';
import { TooManyWindows, buildQuestionWindows, defaultDocStride } from './question-windows.js';

/** Where a pair's answers are read from. */
export interface PairPlan {
  context: string;
  tokens: ContextTokens;
  windows: AnswerWindow[];
}

/** The rows of a question-answering request. */
export interface EncodedQuestions {
  /** One tensor per declared input name, [windows of all pairs, longest row]. */
  tensors: Record<string, Int64Tensor>;
  /** Tokens of each row before padding. */
  lengths: number[];
  /** Per pair, in request order. */
  pairs: PairPlan[];
}

/** What {@link encodeQuestions} needs. */
export interface EncodeQuestionsOptions {
  request: QuestionAnsweringRequest;
  tokenizer: TextTokenizer;
  inputNames: readonly string[];
  /** Token limit per row (the endpoint's maxTokens); capped by the tokenizer's and by 384. */
  maxTokens?: number | undefined;
  /** Most rows (windows of every pair) the model takes in one request (its batching.maxQueueSize). */
  maxRows?: number | undefined;
}

/**
 * Word of each content token: a token that carries the tokenizer's continuation prefix (WordPiece
 * "##") belongs to the word before it. Without such a prefix every token is its own word, so
 * answers keep their tokens' own offsets.
 */
export function wordIdsOf(
  ids: readonly number[],
  tokenizer: Pick<TextTokenizer, 'idToToken' | 'continuingSubwordPrefix'>,
): number[] {
  const prefix = tokenizer.continuingSubwordPrefix;
  let word = -1;
  return ids.map((id, i) => {
    const token = tokenizer.idToToken(id);
    const continues = i > 0 && prefix !== undefined && prefix !== '' && token?.startsWith(prefix) === true;
    if (!continues) word++;
    return word;
  });
}

/** The window length of an endpoint: its token limit, within the tokenizer's and the pipeline's cap. */
export function questionWindowLength(
  tokenizer: Pick<TextTokenizer, 'maxLength'>,
  maxTokens?: number,
): number {
  return Math.min(maxTokens ?? tokenizer.maxLength, tokenizer.maxLength, MAX_QUESTION_ANSWERING_SEQ_LEN);
}

/**
 * Tokenizes every pair, cuts long contexts into windows and packs all windows as rows. Throws
 * ModelgateError (INVALID_ARGUMENT) naming the field for a question that leaves no room, a
 * doc_stride too large for the window, a context the tokenizer cannot give character offsets for,
 * or model inputs text cannot fill.
 */
export function encodeQuestions(options: EncodeQuestionsOptions): EncodedQuestions {
  const { request, tokenizer, inputNames } = options;
  checkInputNames(inputNames);
  const maxSeqLen = questionWindowLength(tokenizer, options.maxTokens);
  const docStride = request.options.docStride ?? defaultDocStride(maxSeqLen);
  const rows: ReturnType<typeof buildQuestionWindows>['rows'] = [];
  const pairs = request.pairs.map(({ question, context }, i): PairPlan => {
    const field = request.batch ? `question[${i}]` : 'question';
    const { ids, offsets } = tokenizer.tokenizeWithOffsets(context);
    if (offsets.some((offset) => offset === undefined)) {
      const contextField = request.batch ? `context[${i}]` : 'context';
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `${contextField}: the model's tokenizer cannot map its tokens back to characters, so no answer could be placed in it`,
        { field: contextField },
      );
    }
    let windows: ReturnType<typeof buildQuestionWindows>;
    try {
      windows = buildQuestionWindows(tokenizer.tokenize(question), ids, tokenizer, {
        maxSeqLen,
        docStride,
        ...(request.options.maxQuestionLen === undefined
          ? {}
          : { maxQuestionLen: request.options.maxQuestionLen }),
        field,
        ...(options.maxRows === undefined ? {} : { maxWindows: options.maxRows - rows.length }),
      });
    } catch (error) {
      if (!(error instanceof TooManyWindows)) throw error;
      // Refused before the rows are built: a long context at a small stride makes thousands.
      throw new ModelgateError(
        ErrorCode.PAYLOAD_TOO_LARGE,
        `context: the contexts split into at least ${rows.length + error.windows} windows of ${maxSeqLen} tokens ` +
          `(doc_stride ${docStride}), more than the ${options.maxRows} rows the model takes in one request ` +
          '(its batching.maxQueueSize): send shorter or fewer contexts, or a larger parameters.doc_stride',
        { field: 'context' },
      );
    }
    const first = rows.length;
    rows.push(...windows.rows);
    return {
      context,
      tokens: { offsets, wordIds: wordIdsOf(ids, tokenizer) },
      windows: windows.ranges.map(({ from, to }, w) => ({
        row: first + w,
        contextStart: windows.contextStart,
        from,
        to,
        leadingSpecial: windows.leadingSpecial,
      })),
    };
  });
  return {
    tensors: packRows(rows, tokenizer.padId, inputNames),
    lengths: rows.map((row) => row.ids.length),
    pairs,
  };
}
