// Cross-encoder logits → texts ranked by relevance, as TEI's `/rerank` answers: the score of a
// (query, text) pair is the sigmoid of its one logit (or the logit itself with raw scores), best
// first, ties in request order.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { z } from 'zod';
import { sigmoid } from './classify.js';

/** One ranked text. */
export interface RankedText {
  /** Position of the text in the request's `texts`. */
  index: number;
  /** sigmoid(logit), or the logit with raw scores. */
  score: number;
  /** The text itself, when asked for. */
  text?: string;
}

/** {@link RankedText} as a zod schema: one element of a text-ranking answer (OpenAPI). */
export const rankedTextSchema = z.object({
  index: z.int().describe("Position of the text in the request's texts"),
  score: z.number().describe('sigmoid(logit) of the (query, text) pair; the logit itself with raw_scores'),
  text: z.string().optional().describe('The text, with return_text'),
});

/** Options of {@link rankTexts}. */
export interface RankOptions {
  /** Scores are logits instead of their sigmoid. @defaultValue false */
  rawScores?: boolean | undefined;
  /** Keep only the best `topN`. @defaultValue every text */
  topN?: number | undefined;
  /** The request's texts, echoed beside their index when given. */
  texts?: readonly string[] | undefined;
}

/**
 * Ranks the rows of a cross-encoder's `logits` ([n, 1], one row per text): best first, ties by
 * index. Throws INTERNAL when the output is not one logit per text.
 */
export function rankTexts(
  logits: ArrayLike<number>,
  dims: readonly number[],
  options: RankOptions = {},
): RankedText[] {
  const [rows, width] = dims;
  if (dims.length !== 2 || width !== 1 || rows === undefined || rows !== logits.length) {
    throw new ModelgateError(
      ErrorCode.INTERNAL,
      `a text-ranking model must output one logit per text ([batch, 1]); it gave dims [${dims.join(',')}]`,
    );
  }
  if (options.texts !== undefined && options.texts.length !== rows) {
    throw new ModelgateError(ErrorCode.INTERNAL, `${rows} scores for ${options.texts.length} texts`);
  }
  const order = Array.from({ length: rows }, (_, i) => i);
  order.sort((a, b) => (logits[b] ?? 0) - (logits[a] ?? 0) || a - b);
  const kept = options.topN === undefined ? order : order.slice(0, options.topN);
  return kept.map((index) => {
    const logit = logits[index] ?? 0;
    const ranked: RankedText = { index, score: options.rawScores ? logit : sigmoid(logit) };
    const text = options.texts?.[index];
    if (text !== undefined) ranked.text = text;
    return ranked;
  });
}
