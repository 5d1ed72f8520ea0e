/**
 * The request bodies of the TEI-compatible routes, as Text Embeddings Inference reads them
 * (router/src/http/types.rs), checked and turned into the `/serve` body of the endpoint's task.
 * Beside TEI's fields a body may name its endpoint in `model`. What TEI accepts and modelgate
 * cannot do is refused by name (token-id inputs, `prompt_name`, left truncation); unknown fields
 * are refused. Pure: no I/O.
 */
import { ErrorCode, ModelgateError, validationError } from '@modelgate/contracts';
import { requestIssues } from '@modelgate/processing';
import { z } from 'zod';
import { TeiEmptyBatch } from './tei-errors.js';

/** A TEI body: a JSON object whose unknown keys are refused. */
function teiObject<T extends z.core.$ZodLooseShape>(shape: T) {
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'invalid_type' ? 'the body must be a JSON object' : undefined),
  });
}

const bool = z.boolean({ error: 'must be true or false' });
const optionalBool = bool.nullish().transform((value) => value ?? undefined);
const text = z.string({ error: 'must be a string' });

/** TEI's `truncation_direction`: modelgate truncates the end of a text only (TEI's default). */
const truncationDirection = z
  .enum(['Right', 'right', 'Left', 'left'], { error: "must be 'Right' or 'Left'" })
  .optional()
  .describe("Which end truncation cuts: only `Right` (keep the start), TEI's default; `Left` is refused");

const shared = {
  model: z
    .string()
    .optional()
    .describe('The endpoint to use; else the x-modelgate-endpoint header, else the default'),
  truncate: optionalBool.describe(
    "Cut inputs over the token limit instead of answering 422; the endpoint's truncation (TEI's auto_truncate) when omitted",
  ),
  truncation_direction: truncationDirection,
};

const promptName = z
  .null({ error: 'sentence-transformers prompts are not configured on modelgate endpoints: leave it out' })
  .optional()
  .describe('Not supported (no sentence-transformers prompts): only null or absent');

/** `inputs` of /embed, /embed_all and /tokenize: a text or texts (TEI also takes token ids: refused). */
const textInputs = z
  .union([text, z.array(z.unknown())], { error: 'must be a string or an array of strings' })
  .describe('One text, or an array of texts');

export const teiEmbedRequestSchema = teiObject({
  ...shared,
  inputs: textInputs,
  normalize: bool.optional().describe('L2-normalize each embedding; default true'),
  dimensions: z
    .int({ error: 'must be a positive integer' })
    .min(1, 'must be a positive integer')
    .nullish()
    .describe('Keep the first N dimensions (Matryoshka), normalized after the cut when `normalize`'),
  prompt_name: promptName,
});

export const teiEmbedAllRequestSchema = teiObject({ ...shared, inputs: textInputs, prompt_name: promptName });

export const teiRerankRequestSchema = teiObject({
  ...shared,
  query: text.describe('What the texts are ranked against'),
  texts: z.array(text, { error: 'must be an array of strings' }).describe('The candidates'),
  raw_scores: bool.optional().describe('Logits instead of their sigmoid; default false'),
  return_text: bool.optional().describe('Echo each text beside its index; default false'),
});

export const teiPredictRequestSchema = teiObject({
  ...shared,
  inputs: z
    .union([text, z.array(z.unknown())], { error: 'must be a string, a pair [string, string] or a batch' })
    .describe('A text, a pair [text, text_pair], or a batch of [text] and [text, text_pair]'),
  raw_scores: bool.optional().describe('Logits instead of probabilities; default false'),
});

export const teiTokenizeRequestSchema = teiObject({
  model: shared.model,
  inputs: textInputs,
  add_special_tokens: bool.optional().describe("Add the model's special tokens; default true"),
  prompt_name: promptName,
});

const tokenId = z
  .int({ error: 'must be a token id (an integer >= 0)' })
  .min(0, 'must be a token id (an integer >= 0)');

export const teiDecodeRequestSchema = teiObject({
  model: shared.model,
  ids: z
    .union([z.array(tokenId), z.array(z.array(tokenId))], {
      error: 'must be an array of token ids, or of such arrays',
    })
    .describe('Token ids, or a batch of them'),
  skip_special_tokens: bool.optional().describe('Leave special tokens out of the text; default true'),
});

function parse<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw validationError('request body', requestIssues(parsed.error));
}

function refuseLeftTruncation(direction: string | undefined): void {
  if (direction === 'Left' || direction === 'left') {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      'truncation_direction: Left is not supported: modelgate truncates the end of a text (Right)',
      { field: 'truncation_direction' },
    );
  }
}

/** The texts of `inputs`: a string is one (not a batch); token ids are refused. */
function texts(inputs: string | unknown[]): { texts: string[]; batch: boolean } {
  if (typeof inputs === 'string') return { texts: [inputs], batch: false };
  if (inputs.length === 0) throw new TeiEmptyBatch('inputs');
  inputs.forEach((input, index) => {
    if (typeof input === 'string') return;
    const ids = typeof input === 'number' || Array.isArray(input);
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      ids ? 'inputs: token ids are not accepted; send the text' : `inputs[${index}]: must be a string`,
      { field: `inputs[${index}]` },
    );
  });
  return { texts: inputs as string[], batch: true };
}

function truncation(truncate: boolean | undefined): { truncation?: boolean } {
  return truncate === undefined ? {} : { truncation: truncate };
}

/** A /embed or /embed_all request as the /serve body that answers it, and what TEI adds after. */
export interface TeiEmbedCall {
  serveBody: { text: string[]; parameters: Record<string, unknown> };
  normalize: boolean;
  dimensions?: number;
}

/** /embed: pooled vectors from /serve, unnormalized; cut to `dimensions` and normalized here. */
export function parseTeiEmbed(body: unknown): TeiEmbedCall {
  const request = parse(teiEmbedRequestSchema, body);
  refuseLeftTruncation(request.truncation_direction);
  return {
    serveBody: {
      text: texts(request.inputs).texts,
      parameters: { normalize: false, ...truncation(request.truncate) },
    },
    normalize: request.normalize ?? true,
    ...(request.dimensions === undefined || request.dimensions === null
      ? {}
      : { dimensions: request.dimensions }),
  };
}

/** /embed_all: every token's vector, as the model outputs them. */
export function parseTeiEmbedAll(body: unknown): TeiEmbedCall {
  const request = parse(teiEmbedAllRequestSchema, body);
  refuseLeftTruncation(request.truncation_direction);
  return {
    serveBody: {
      text: texts(request.inputs).texts,
      parameters: { pooling: 'none', normalize: false, ...truncation(request.truncate) },
    },
    normalize: false,
  };
}

/** /rerank: the text-ranking /serve body (TEI's own fields), `model` left out. */
export function parseTeiRerank(body: unknown): Record<string, unknown> {
  const request = parse(teiRerankRequestSchema, body);
  refuseLeftTruncation(request.truncation_direction);
  if (request.texts.length === 0) throw new TeiEmptyBatch('texts');
  return {
    query: request.query,
    texts: request.texts,
    ...(request.raw_scores === undefined ? {} : { raw_scores: request.raw_scores }),
    ...(request.return_text === undefined ? {} : { return_text: request.return_text }),
    ...(request.truncate === undefined ? {} : { truncate: request.truncate }),
  };
}

/** One input of /predict: a text, or a (text, text_pair) pair. */
export type TeiSequence = readonly [string] | readonly [string, string];

/** /predict: the sequences in order, whether a batch, and the /serve parameters of each call. */
export interface TeiPredictCall {
  sequences: TeiSequence[];
  batch: boolean;
  parameters: Record<string, unknown>;
}

function sequence(value: unknown, index: number): TeiSequence {
  if (
    Array.isArray(value) &&
    (value.length === 1 || value.length === 2) &&
    value.every((v) => typeof v === 'string')
  ) {
    return value as unknown as TeiSequence;
  }
  throw new ModelgateError(
    ErrorCode.INVALID_ARGUMENT,
    `inputs[${index}]: must be [text] or [text, text_pair]`,
    { field: `inputs[${index}]` },
  );
}

/**
 * /predict, read as TEI reads `inputs`: a string is one text; an array of strings is one pair
 * (two strings; one string is one text; more is refused); an array of arrays is a batch of texts
 * ([text]) and pairs ([text, text_pair]). Every label is answered, best first.
 */
export function parseTeiPredict(body: unknown): TeiPredictCall {
  const request = parse(teiPredictRequestSchema, body);
  refuseLeftTruncation(request.truncation_direction);
  const parameters = {
    top_k: null,
    ...(request.raw_scores === true ? { function_to_apply: 'none' } : {}),
    ...truncation(request.truncate),
  };
  const inputs = request.inputs;
  if (typeof inputs === 'string') return { sequences: [[inputs]], batch: false, parameters };
  if (inputs.length === 0) throw new TeiEmptyBatch('inputs');
  if (typeof inputs[0] === 'string') {
    if (inputs.length > 2 || !inputs.every((input) => typeof input === 'string')) {
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        'inputs: an array of strings is one text or one pair [text, text_pair]; send a batch as [[text], [text, text_pair], …]',
        { field: 'inputs' },
      );
    }
    return { sequences: [inputs as unknown as TeiSequence], batch: false, parameters };
  }
  return { sequences: inputs.map(sequence), batch: true, parameters };
}

/** /tokenize: the /serve/{endpoint}/tokenize body. */
export function parseTeiTokenize(body: unknown): { text: string[]; add_special_tokens?: boolean } {
  const request = parse(teiTokenizeRequestSchema, body);
  return {
    text: texts(request.inputs).texts,
    ...(request.add_special_tokens === undefined ? {} : { add_special_tokens: request.add_special_tokens }),
  };
}

/** /decode: the id lists to decode (one for a flat array: `flat`), and whether specials are skipped. */
export function parseTeiDecode(body: unknown): {
  ids: number[][];
  flat: boolean;
  skipSpecialTokens: boolean;
} {
  const request = parse(teiDecodeRequestSchema, body);
  const ids = request.ids;
  if (ids.length === 0) throw new TeiEmptyBatch('ids');
  const flat = typeof ids[0] === 'number';
  return {
    ids: flat ? [ids as number[]] : (ids as number[][]),
    flat,
    skipSpecialTokens: request.skip_special_tokens ?? true,
  };
}
