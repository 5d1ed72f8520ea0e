// Validation of text-ranking bodies, shaped as TEI's `POST /rerank`: `{query, texts, top_n?,
// return_text?, raw_scores?, truncate?, truncation_direction?}`. The query is paired with every
// text, and all pairs go to the worker as rows of one request.
import { ErrorCode, ModelgateError, type PreprocessingConfig, validationError } from '@modelgate/contracts';
import { z } from 'zod';
import { requestIssues } from './request-issues.js';
import { checkItemCount, checkTextLengths } from './request-limits.js';

/** The JSON body of `POST /serve/:endpoint` on a text-ranking endpoint; unknown keys are rejected. */
export const rankRequestSchema = z.strictObject(
  {
    query: z
      .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
      .describe('What the texts are ranked against; paired with each text as (query, text)'),
    texts: z
      .array(z.string({ error: 'must be a string' }), {
        error: (issue) => (issue.input === undefined ? 'is required' : 'must be an array of strings'),
      })
      .describe('The candidate texts; answers name them by their index here'),
    top_n: z
      .int({ error: 'must be a positive integer' })
      .min(1, 'must be a positive integer')
      .optional()
      .describe('Answer only the best `top_n` texts; every text when omitted'),
    return_text: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe('Echo each text beside its index; default false'),
    raw_scores: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe("Scores are the model's logits instead of their sigmoid; default false"),
    truncate: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe(
        "Cut pairs over the token limit (longest first) instead of answering 422; the endpoint's truncation when omitted",
      ),
    truncation_direction: z
      .enum(['Right', 'right'], { error: "only 'Right' is supported (truncation keeps the start)" })
      .optional()
      .describe("Which end truncation cuts: only `Right` (keep the start of each text), TEI's default"),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'the body must be a JSON object' : undefined) },
);

/** A text-ranking body as the client sent it. */
export type RankRequestBody = z.infer<typeof rankRequestSchema>;

/** A validated text-ranking request. */
export interface RankRequest {
  query: string;
  /** At least one text. */
  texts: string[];
  /** `top_n` when given. */
  topN?: number;
  returnText: boolean;
  rawScores: boolean;
  /** `truncate`, else the endpoint's default. */
  truncation: boolean;
}

/**
 * Validates a text-ranking body against the endpoint's limits. Throws ModelgateError naming the
 * field: INVALID_ARGUMENT (400) for a malformed or unknown field or no texts; PAYLOAD_TOO_LARGE
 * (413) for more than maxBatchItems texts, or a query or text over maxInputChars.
 */
export function parseRankRequest(
  body: unknown,
  preprocessing: Pick<PreprocessingConfig, 'maxInputChars' | 'maxBatchItems' | 'truncation'>,
): RankRequest {
  checkItemCount(body, 'texts', preprocessing.maxBatchItems);
  const parsed = rankRequestSchema.safeParse(body);
  if (!parsed.success) throw validationError('request body', requestIssues(parsed.error));
  const request = parsed.data;
  if (request.texts.length === 0) {
    throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'texts: must hold at least one text', {
      field: 'texts',
    });
  }
  checkTextLengths([request.query], 'query', false, preprocessing.maxInputChars);
  checkTextLengths(request.texts, 'texts', true, preprocessing.maxInputChars);
  return {
    query: request.query,
    texts: request.texts,
    ...(request.top_n === undefined ? {} : { topN: request.top_n }),
    returnText: request.return_text ?? false,
    rawScores: request.raw_scores ?? false,
    truncation: request.truncate ?? preprocessing.truncation,
  };
}
