// Validation of `POST /serve/:endpoint/tokenize` bodies: the texts a serve request would carry,
// `{text, text_pair?, add_special_tokens?, parameters?: {truncation?}}`, with the same limits.
import { type ModelTask, type PreprocessingConfig, validationError } from '@modelgate/contracts';
import { z } from 'zod';
import { requestIssues } from './request-issues.js';
import { checkItemCount } from './request-limits.js';
import { PARAMETERS_DESCRIPTION } from './request-issues.js';
import { parseServeRequest, serveRequestSchema } from './serve-request.js';

/** The JSON body of `POST /serve/:endpoint/tokenize`; unknown keys are rejected. */
export const tokenizeRequestSchema = serveRequestSchema.omit({ parameters: true }).extend({
  add_special_tokens: z
    .boolean({ error: 'must be true or false' })
    .optional()
    .describe("Add the model's special tokens ([CLS] … [SEP]), as TEI's /tokenize; default true"),
  // Only `truncation` means anything without a model run.
  parameters: serveRequestSchema.shape.parameters
    .unwrap()
    .pick({ truncation: true })
    .optional()
    .describe(PARAMETERS_DESCRIPTION),
});

/** A tokenize body as the client sent it. */
export type TokenizeRequestBody = z.infer<typeof tokenizeRequestSchema>;

/** A validated tokenize request, normalized to arrays. */
export interface TokenizeRequest {
  texts: string[];
  /** Second texts of pairs, one per text. */
  pairs?: string[];
  /** True when the client sent an array. */
  batch: boolean;
  addSpecialTokens: boolean;
  /** `parameters.truncation`, else the endpoint's default. */
  truncation: boolean;
}

/** The tasks whose inputs /tokenize shows: text in, one row per text (or pair). */
export type TokenizableTask = Extract<
  ModelTask,
  'text-classification' | 'feature-extraction' | 'token-classification' | 'text-ranking' | 'text-generation'
>;

/**
 * Validates a tokenize body for a model of `task` against the endpoint's limits, with the errors
 * of a serve body: INVALID_ARGUMENT (400) naming a malformed or unknown field (`text_pair` but for
 * text-classification and text-ranking, whose rows are pairs; more than one prompt for
 * text-generation), PAYLOAD_TOO_LARGE (413) for too many texts or a text over maxInputChars.
 */
export function parseTokenizeRequest(
  body: unknown,
  preprocessing: Pick<PreprocessingConfig, 'maxInputChars' | 'maxBatchItems' | 'truncation'>,
  task: TokenizableTask = 'text-classification',
): TokenizeRequest {
  // 413 before zod walks every element of an oversized batch, as on /serve.
  checkItemCount(body, 'text', preprocessing.maxBatchItems);
  const parsed = tokenizeRequestSchema.safeParse(body);
  if (!parsed.success) throw validationError('request body', requestIssues(parsed.error));
  const { add_special_tokens: addSpecialTokens = true, ...serveBody } = parsed.data;
  // A ranking row is a (query, text) pair, as text-classification's (text, text_pair).
  const asTask = task === 'text-ranking' ? 'text-classification' : task;
  const request = parseServeRequest(serveBody, preprocessing, { task: asTask });
  if (task === 'text-generation' && request.batch) {
    throw validationError('request body', [
      { path: 'text', message: 'a text-generation endpoint reads one prompt: send a string' },
    ]);
  }
  return {
    texts: request.texts,
    ...(request.pairs === undefined ? {} : { pairs: request.pairs }),
    batch: request.batch,
    addSpecialTokens,
    truncation: request.truncation,
  };
}
