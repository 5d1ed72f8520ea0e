// Validation of `POST /serve/:endpoint` bodies (DESIGN §3.1): `{text, text_pair?, parameters?}`.
import {
  ErrorCode,
  type ModelTask,
  ModelgateError,
  type PreprocessingConfig,
  validationError,
} from '@modelgate/contracts';
import { z } from 'zod';
import { requestIssues } from './request-issues.js';

const textSchema = z.union([z.string(), z.array(z.string({ error: 'must be a string' }))], {
  error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string or an array of strings'),
});

/** The JSON body of `POST /serve/:endpoint`; unknown keys are rejected. */
export const serveRequestSchema = z.strictObject(
  {
    /** One text, or an array of texts (a batch). */
    text: textSchema,
    /** Second text of each sentence pair (text-classification), shaped like `text`. */
    text_pair: textSchema.optional(),
    /** Per-request options. */
    parameters: z
      .strictObject({
        /** Labels to return per input, best first. */
        top_k: z.int({ error: 'must be a positive integer' }).min(1, 'must be a positive integer').optional(),
        /** Cut inputs over the token limit instead of answering 422. */
        truncation: z.boolean({ error: 'must be true or false' }).optional(),
      })
      .optional(),
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
  /** `parameters.top_k` when given. */
  topK?: number;
  /** `parameters.truncation`, else the endpoint's default. */
  truncation: boolean;
}

/** Options of {@link parseServeRequest}. */
export interface ParseServeRequestOptions {
  /** The endpoint's task: fields of other tasks (top_k, text_pair off text-classification) are rejected. */
  task?: ModelTask;
}

function fieldError(code: ErrorCode, field: string, message: string): ModelgateError {
  return new ModelgateError(code, `${field}: ${message}`, { field });
}

function checkLengths(values: readonly string[], name: string, batch: boolean, maxChars: number): void {
  values.forEach((value, i) => {
    if (value.length > maxChars) {
      throw fieldError(
        ErrorCode.PAYLOAD_TOO_LARGE,
        batch ? `${name}[${i}]` : name,
        `is ${value.length} characters long, more than the limit of ${maxChars}`,
      );
    }
  });
}

function checkTaskFields(body: ServeRequestBody, task: ModelTask | undefined): void {
  if (task === undefined || task === 'text-classification') return;
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
  // Bound the work before zod walks every element of an oversized batch.
  if (typeof body === 'object' && body !== null && 'text' in body && Array.isArray(body.text)) {
    if (body.text.length > preprocessing.maxBatchItems) {
      throw fieldError(
        ErrorCode.PAYLOAD_TOO_LARGE,
        'text',
        `holds ${body.text.length} texts, more than the limit of ${preprocessing.maxBatchItems}`,
      );
    }
  }
  const parsed = serveRequestSchema.safeParse(body);
  if (!parsed.success) throw validationError('request body', requestIssues(parsed.error));
  const request = parsed.data;
  checkTaskFields(request, options.task);

  const batch = Array.isArray(request.text);
  const texts = Array.isArray(request.text) ? request.text : [request.text];
  if (texts.length === 0) throw fieldError(ErrorCode.INVALID_ARGUMENT, 'text', 'must hold at least one text');
  checkLengths(texts, 'text', batch, preprocessing.maxInputChars);

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
    checkLengths(pairs, 'text_pair', batch, preprocessing.maxInputChars);
  }

  const topK = request.parameters?.top_k;
  return {
    texts,
    ...(pairs === undefined ? {} : { pairs }),
    batch,
    ...(topK === undefined ? {} : { topK }),
    truncation: request.parameters?.truncation ?? preprocessing.truncation,
  };
}
