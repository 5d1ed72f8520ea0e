// Validation of `POST /serve/:endpoint` bodies (DESIGN §3.1): `{text, text_pair?, parameters?}`.
import {
  ErrorCode,
  type ModelTask,
  ModelgateError,
  type PreprocessingConfig,
  validationError,
} from '@modelgate/contracts';
import { z } from 'zod';
import {
  type QuestionAnsweringRequest,
  parseQuestionAnsweringRequest,
} from './question-answering-request.js';
import { type RankRequest, parseRankRequest } from './rank-request.js';
import { PARAMETERS_DESCRIPTION, requestIssues } from './request-issues.js';
import { checkItemCount, checkTextLengths } from './request-limits.js';
import {
  type TokenClassificationOptions,
  tokenClassificationOptions,
  tokenClassificationParameters,
} from './token-classification-request.js';

const textSchema = z.union([z.string(), z.array(z.string({ error: 'must be a string' }))], {
  error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string or an array of strings'),
});

/** The JSON body of `POST /serve/:endpoint`; unknown keys are rejected. */
export const serveRequestSchema = z.strictObject(
  {
    text: textSchema.describe('One text, or an array of texts (a batch: one prediction per text)'),
    text_pair: textSchema
      .optional()
      .describe('Second text of each sentence pair (text-classification), shaped like `text`'),
    parameters: z
      .strictObject({
        top_k: z
          .int({ error: 'must be a positive integer or null' })
          .min(1, 'must be a positive integer or null')
          .nullable()
          .optional()
          .describe(
            'Labels to return per input, best first; null: every label (as the pipeline reads top_k=None)',
          ),
        function_to_apply: z
          .enum(['softmax', 'sigmoid', 'none'], { error: "must be 'softmax', 'sigmoid' or 'none'" })
          .optional()
          .describe(
            "text-classification: the scores' function, as the pipeline's function_to_apply: softmax over the labels, a sigmoid per label, or none (the logits); the model's own (softmax, sigmoid for multi-label and one-label models, none for regression) when omitted",
          ),
        pooling: z
          .enum(['mean', 'cls', 'none'], { error: "must be 'mean', 'cls' or 'none'" })
          .optional()
          .describe(
            "feature-extraction: how token vectors become the embedding (mean over the attention mask, or the first token), or none: every token's vector as `token_embeddings` (as sentence-transformers' output_value='token_embeddings'); the endpoint's postprocessing.pooling when omitted",
          ),
        normalize: z
          .boolean({ error: 'must be true or false' })
          .optional()
          .describe(
            "feature-extraction: L2-normalize each embedding (true) or answer the pooled vector (false); the endpoint's postprocessing.normalize when omitted",
          ),
        truncation: z
          .boolean({ error: 'must be true or false' })
          .optional()
          .describe(
            "Cut inputs over the token limit instead of answering 422; the endpoint's default when omitted",
          ),
        ...tokenClassificationParameters,
      })
      .optional()
      .describe(PARAMETERS_DESCRIPTION),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'the body must be a JSON object' : undefined) },
);

/** The body as the client sent it. */
export type ServeRequestBody = z.infer<typeof serveRequestSchema>;

/** A validated serve request, normalized to arrays. */
export interface ServeRequest {
  /** The inputs in order; one element when the client sent a single string. */
  texts: string[];
  /** Second texts of pairs, one per text. */
  pairs?: string[];
  /** True when the client sent an array: the response then holds one prediction per element. */
  batch: boolean;
  /** `parameters.top_k` when given; Infinity for null (every label). */
  topK?: number;
  /** text-classification: `parameters.function_to_apply` when given. */
  functionToApply?: 'softmax' | 'sigmoid' | 'none';
  /** feature-extraction: `parameters.normalize` when given. */
  normalize?: boolean;
  /** feature-extraction: `parameters.pooling` when given. */
  pooling?: 'mean' | 'cls' | 'none';
  /** `parameters.truncation`, else the endpoint's default. */
  truncation: boolean;
  /** token-classification: `aggregation_strategy` and `ignore_labels`, defaults filled in. */
  tokenClassification?: TokenClassificationOptions;
  /** The body field that holds the inputs, for error messages (`texts` on text-ranking). @defaultValue 'text' */
  inputField?: string;
  /** question-answering: the pairs and parameters; `texts`/`pairs` then hold the questions and contexts. */
  questionAnswering?: QuestionAnsweringRequest;
  /** text-ranking: the (query, text) request; `texts`/`pairs` then hold the query and the texts. */
  ranking?: RankRequest;
}

/** Options of {@link parseServeRequest}. */
export interface ParseServeRequestOptions {
  /** The endpoint's task: fields of other tasks (top_k, text_pair off text-classification) are rejected. */
  task?: ModelTask;
}

function fieldError(code: ErrorCode, field: string, message: string): ModelgateError {
  return new ModelgateError(code, `${field}: ${message}`, { field });
}

function checkTaskFields(body: ServeRequestBody, task: ModelTask | undefined): void {
  if (task === undefined) return;
  for (const key of ['normalize', 'pooling'] as const) {
    if (body.parameters?.[key] !== undefined && task !== 'feature-extraction') {
      throw fieldError(
        ErrorCode.INVALID_ARGUMENT,
        `parameters.${key}`,
        `applies to feature-extraction, not ${task}`,
      );
    }
  }
  if (task === 'text-classification') return;
  if (body.parameters?.function_to_apply !== undefined) {
    throw fieldError(
      ErrorCode.INVALID_ARGUMENT,
      'parameters.function_to_apply',
      `applies to text-classification, not ${task}`,
    );
  }
  if (body.text_pair !== undefined) {
    throw fieldError(ErrorCode.INVALID_ARGUMENT, 'text_pair', `applies to text-classification, not ${task}`);
  }
  if (body.parameters?.top_k !== undefined) {
    throw fieldError(
      ErrorCode.INVALID_ARGUMENT,
      'parameters.top_k',
      `applies to text-classification, not ${task}`,
    );
  }
}

/**
 * Validates a serve body against the endpoint's limits. Throws ModelgateError with `details.field`:
 * INVALID_ARGUMENT (400) for a malformed or unknown field, an empty batch or a text_pair that does
 * not match text; PAYLOAD_TOO_LARGE (413) for more than maxBatchItems texts or a text over
 * maxInputChars (UTF-16 code units), naming `text[i]`.
 */
export function parseServeRequest(
  body: unknown,
  preprocessing: Pick<PreprocessingConfig, 'maxInputChars' | 'maxBatchItems' | 'truncation'>,
  options: ParseServeRequestOptions = {},
): ServeRequest {
  if (options.task === 'question-answering') {
    // Every pair's windows go to the worker as rows of one request (encode-questions.ts).
    const questionAnswering = parseQuestionAnsweringRequest(body, preprocessing);
    return {
      texts: questionAnswering.pairs.map((pair) => pair.question),
      pairs: questionAnswering.pairs.map((pair) => pair.context),
      batch: questionAnswering.batch,
      truncation: false,
      inputField: 'question',
      questionAnswering,
    };
  }
  if (options.task === 'text-ranking') {
    // Each (query, text) pair is one row of one batch to the worker.
    const ranking = parseRankRequest(body, preprocessing);
    const queries = ranking.texts.map(() => ranking.query);
    return {
      texts: queries,
      pairs: ranking.texts,
      batch: true,
      truncation: ranking.truncation,
      inputField: 'texts',
      ranking,
    };
  }
  checkItemCount(body, 'text', preprocessing.maxBatchItems);
  const parsed = serveRequestSchema.safeParse(body);
  if (!parsed.success) throw validationError('request body', requestIssues(parsed.error));
  const request = parsed.data;
  checkTaskFields(request, options.task);

  const batch = Array.isArray(request.text);
  const texts = Array.isArray(request.text) ? request.text : [request.text];
  if (texts.length === 0) throw fieldError(ErrorCode.INVALID_ARGUMENT, 'text', 'must hold at least one text');
  checkTextLengths(texts, 'text', batch, preprocessing.maxInputChars);

  let pairs: string[] | undefined;
  if (request.text_pair !== undefined) {
    pairs = Array.isArray(request.text_pair) ? request.text_pair : [request.text_pair];
    if (Array.isArray(request.text_pair) !== batch || pairs.length !== texts.length) {
      throw fieldError(
        ErrorCode.INVALID_ARGUMENT,
        'text_pair',
        batch
          ? `must be an array of ${texts.length} strings, one per text`
          : 'must be a string when text is a string',
      );
    }
    checkTextLengths(pairs, 'text_pair', batch, preprocessing.maxInputChars);
  }

  const topK = request.parameters?.top_k === null ? Infinity : request.parameters?.top_k;
  const functionToApply = request.parameters?.function_to_apply;
  const normalize = request.parameters?.normalize;
  const pooling = request.parameters?.pooling;
  const tokenClassification = tokenClassificationOptions(request.parameters, options.task);
  return {
    ...(tokenClassification === undefined ? {} : { tokenClassification }),
    texts,
    ...(pairs === undefined ? {} : { pairs }),
    batch,
    ...(topK === undefined ? {} : { topK }),
    ...(functionToApply === undefined ? {} : { functionToApply }),
    ...(normalize === undefined ? {} : { normalize }),
    ...(pooling === undefined ? {} : { pooling }),
    truncation: request.parameters?.truncation ?? preprocessing.truncation,
  };
}
