// Validation of question-answering bodies: `{question, context, parameters?}` with the parameters
// of transformers' `pipeline('question-answering')`. Strings or arrays pair up as the Python
// pipeline pairs them: two strings, two arrays of the same length, or an array of questions about
// one context (and, beyond Python, one question asked of an array of contexts).
import { ErrorCode, ModelgateError, type PreprocessingConfig, validationError } from '@modelgate/contracts';
import { z } from 'zod';
import { PARAMETERS_DESCRIPTION, requestIssues } from './request-issues.js';

const positiveInt = (max?: number) => {
  const range = max === undefined ? 'a positive integer' : `an integer from 1 to ${max}`;
  const int = z.int({ error: `must be ${range}` }).min(1, `must be ${range}`);
  return (max === undefined ? int : int.max(max, `must be ${range}`)).optional();
};

/** Most answers per question: span selection keeps them sorted, so the work grows with it. */
export const MAX_QUESTION_ANSWERING_TOP_K = 100;

const textsSchema = z.union([z.string(), z.array(z.string({ error: 'must be a string' }))], {
  error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string or an array of strings'),
});

/** `parameters` of a question-answering body; every field is optional. */
export const questionAnsweringParametersSchema = z.strictObject({
  top_k: positiveInt(MAX_QUESTION_ANSWERING_TOP_K).describe(
    'Answers per question, best first (fewer when the context has fewer distinct spans); default 1',
  ),
  doc_stride: z
    .int({ error: 'must be a non-negative integer' })
    .min(0, 'must be a non-negative integer')
    .optional()
    .describe(
      'Tokens each window of a long context shares with the window before it; less than the context ' +
        'tokens a window holds; default min(window length / 2, 128)',
    ),
  // Any length: the span search stops at the window's end, whatever max_answer_len says.
  max_answer_len: positiveInt().describe('Longest answer in tokens; default 15'),
  max_question_len: positiveInt().describe(
    "Cut the question to this many tokens (Python's slow-tokenizer path, max_query_length); by default " +
      'the question is kept whole, as Python’s pipeline does with a fast tokenizer',
  ),
  handle_impossible_answer: z
    .boolean({ error: 'must be true or false' })
    .optional()
    .describe('Also consider "no answer" (the [CLS] span\'s score; answer "" at 0..0); default false'),
});

/** The JSON body of `POST /serve/:endpoint` on a question-answering endpoint; unknown keys are rejected. */
export const questionAnsweringRequestSchema = z.strictObject(
  {
    question: textsSchema.describe(
      'One question, or an array (paired with `context` element by element, or all about one context)',
    ),
    context: textsSchema.describe(
      'The text the answer is extracted from; long contexts are split into overlapping windows',
    ),
    parameters: questionAnsweringParametersSchema.optional().describe(PARAMETERS_DESCRIPTION),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'the body must be a JSON object' : undefined) },
);

/** One answer: a span of the context. */
export const questionAnswerSchema = z.object({
  answer: z.string().describe('The context between start and end'),
  score: z
    .number()
    .describe('Probability of the span (start × end probability, summed over windows that give it)'),
  start: z.int().describe('Offset of the first character in the context (Unicode code points)'),
  end: z.int().describe('Offset after the last character (exclusive)'),
});

/** A question-answering body as the client sent it. */
export type QuestionAnsweringRequestBody = z.infer<typeof questionAnsweringRequestSchema>;

/** One answer as the gateway returns it. */
export type QuestionAnswer = z.infer<typeof questionAnswerSchema>;

/** How answers are searched and returned, the pipeline's defaults filled in (doc_stride depends on the window). */
export interface QuestionAnsweringOptions {
  topK: number;
  /** Undefined: the pipeline's default for the window length. */
  docStride?: number;
  maxAnswerLen: number;
  /** Undefined: the question is kept whole (Python's fast path); given: cut to this many tokens. */
  maxQuestionLen?: number;
  handleImpossibleAnswer: boolean;
}

/** A validated question-answering request. */
export interface QuestionAnsweringRequest {
  /** The (question, context) pairs in answer order. */
  pairs: { question: string; context: string }[];
  /** True when the client sent an array: the answer then holds one prediction per pair. */
  batch: boolean;
  options: QuestionAnsweringOptions;
}

/**
 * transformers' defaults: top_k 1, max_answer_len 15. Its max_question_len (64) acts only on the
 * slow-tokenizer path; with a fast tokenizer, as here, the question is never cut.
 */
export const QUESTION_ANSWERING_DEFAULTS = { topK: 1, maxAnswerLen: 15 } as const;

function fieldError(code: ErrorCode, field: string, message: string): ModelgateError {
  return new ModelgateError(code, `${field}: ${message}`, { field });
}

function asList(value: string | string[]): string[] {
  return Array.isArray(value) ? value : [value];
}

function checkTexts(values: readonly string[], name: string, batch: boolean, maxChars: number): void {
  values.forEach((value, i) => {
    const field = batch ? `${name}[${i}]` : name;
    // As the Python pipeline: an empty question or context has no answer to look for.
    if (value.length === 0) throw fieldError(ErrorCode.INVALID_ARGUMENT, field, 'must not be empty');
    if (value.length > maxChars) {
      throw fieldError(
        ErrorCode.PAYLOAD_TOO_LARGE,
        field,
        `is ${value.length} characters long, more than the limit of ${maxChars}`,
      );
    }
  });
}

function pairUp(
  question: string | string[],
  context: string | string[],
): { question: string; context: string }[] {
  const questions = asList(question);
  const contexts = asList(context);
  if (Array.isArray(question) && Array.isArray(context) && questions.length !== contexts.length) {
    throw fieldError(
      ErrorCode.INVALID_ARGUMENT,
      'context',
      `holds ${contexts.length} contexts but question holds ${questions.length} questions; send as many of each, or one context`,
    );
  }
  const count = Math.max(questions.length, contexts.length);
  return Array.from({ length: count }, (_, i) => ({
    question: questions[Array.isArray(question) ? i : 0] ?? '',
    context: contexts[Array.isArray(context) ? i : 0] ?? '',
  }));
}

/**
 * Validates a question-answering body against the endpoint's limits. Throws ModelgateError naming
 * the field: INVALID_ARGUMENT (400) for a malformed or unknown field, an empty question or context,
 * arrays of different lengths or no pair at all; PAYLOAD_TOO_LARGE (413) for more than
 * maxBatchItems pairs or a question or context over maxInputChars (UTF-16 code units).
 */
export function parseQuestionAnsweringRequest(
  body: unknown,
  preprocessing: Pick<PreprocessingConfig, 'maxInputChars' | 'maxBatchItems'>,
): QuestionAnsweringRequest {
  // Bound the work before zod walks every element of an oversized batch.
  if (typeof body === 'object' && body !== null) {
    for (const field of ['question', 'context'] as const) {
      const value: unknown = (body as Record<string, unknown>)[field];
      if (Array.isArray(value) && value.length > preprocessing.maxBatchItems) {
        throw fieldError(
          ErrorCode.PAYLOAD_TOO_LARGE,
          field,
          `holds ${value.length} entries, more than the limit of ${preprocessing.maxBatchItems}`,
        );
      }
    }
  }
  const parsed = questionAnsweringRequestSchema.safeParse(body);
  if (!parsed.success) throw validationError('request body', requestIssues(parsed.error));
  const { question, context, parameters = {} } = parsed.data;
  const batch = Array.isArray(question) || Array.isArray(context);
  checkTexts(asList(question), 'question', Array.isArray(question), preprocessing.maxInputChars);
  checkTexts(asList(context), 'context', Array.isArray(context), preprocessing.maxInputChars);
  for (const [field, value] of [
    ['question', question],
    ['context', context],
  ] as const) {
    // An empty list beside a string would pair the string with nothing and answer a phantom pair.
    if (Array.isArray(value) && value.length === 0) {
      throw fieldError(ErrorCode.INVALID_ARGUMENT, field, 'must hold at least one entry');
    }
  }
  const pairs = pairUp(question, context);
  if (pairs.length === 0) {
    throw fieldError(
      ErrorCode.INVALID_ARGUMENT,
      Array.isArray(question) ? 'question' : 'context',
      'must hold at least one entry',
    );
  }
  return {
    pairs,
    batch,
    options: {
      topK: parameters.top_k ?? QUESTION_ANSWERING_DEFAULTS.topK,
      ...(parameters.doc_stride === undefined ? {} : { docStride: parameters.doc_stride }),
      maxAnswerLen: parameters.max_answer_len ?? QUESTION_ANSWERING_DEFAULTS.maxAnswerLen,
      ...(parameters.max_question_len === undefined ? {} : { maxQuestionLen: parameters.max_question_len }),
      handleImpossibleAnswer: parameters.handle_impossible_answer ?? false,
    },
  };
}
