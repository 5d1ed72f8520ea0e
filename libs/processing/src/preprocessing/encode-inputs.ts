// Text → the int64 tensors a Hugging Face transformer export declares: input_ids, attention_mask
// and (when the model has it) token_type_ids, right-padded to the longest input of the request.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type EncodedText } from '../tokenizer/special-tokens-template.js';
import { type TextTokenizer } from '../tokenizer/text-tokenizer.js';
import { tokenLimitExceeded, truncateContent } from './truncate-tokens.js';

/** Model inputs the gateway builds from text. */
export const TEXT_INPUT_NAMES = ['input_ids', 'attention_mask', 'token_type_ids'] as const;

/** One of TEXT_INPUT_NAMES. */
export type TextInputName = (typeof TEXT_INPUT_NAMES)[number];

/** A [batch, sequence] int64 tensor, row-major. */
export interface Int64Tensor {
  datatype: 'INT64';
  dims: [number, number];
  data: BigInt64Array;
}

/** What {@link encodeInputs} needs. */
export interface EncodeInputsOptions {
  /** The inputs, in request order. */
  texts: readonly string[];
  /** Second texts of sentence pairs, one per text. */
  pairs?: readonly string[] | undefined;
  tokenizer: TextTokenizer;
  /** The model's declared input names (e.g. without token_type_ids for DistilBERT). */
  inputNames: readonly string[];
  /** Token limit per input, special tokens included; capped by tokenizer.maxLength. @defaultValue tokenizer.maxLength */
  maxTokens?: number | undefined;
  /** Cut inputs over the limit (true) or reject them with TOKEN_LIMIT_EXCEEDED (false). */
  truncation: boolean;
  /** Whether the request sent an array (errors name `text[i]`) or one string (`text`). @defaultValue texts.length !== 1 */
  batch?: boolean | undefined;
  /** The body field errors name (`texts[i]` on text-ranking). @defaultValue 'text' */
  inputField?: string | undefined;
}

/** The model inputs of a request, plus each row's real length. */
export interface EncodedInputs {
  /** One tensor per declared input name, in the order the model declares them. */
  tensors: Record<string, Int64Tensor>;
  /** Tokens of each row before padding, special tokens included. */
  lengths: number[];
}

function isTextInput(name: string): name is TextInputName {
  return (TEXT_INPUT_NAMES as readonly string[]).includes(name);
}

/** Throws INVALID_ARGUMENT when the model declares inputs text cannot fill, or no input_ids. */
export function checkInputNames(inputNames: readonly string[]): void {
  const unknown = inputNames.filter((name) => !isTextInput(name));
  if (unknown.length > 0) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `the model needs input(s) ${unknown.map((n) => `'${n}'`).join(', ')} that the gateway cannot build ` +
        `from text (it builds ${TEXT_INPUT_NAMES.join(', ')}); serve it through a raw endpoint with tensors`,
      { field: 'inputs' },
    );
  }
  if (!inputNames.includes('input_ids')) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      'the model declares no input_ids input, so it cannot take text; serve it through a raw endpoint',
      { field: 'inputs' },
    );
  }
}

function encodeOne(
  tokenizer: TextTokenizer,
  text: string,
  pair: string | undefined,
  limit: number,
  truncation: boolean,
  field: string,
): EncodedText {
  const first = tokenizer.tokenize(text);
  const second = pair === undefined ? undefined : tokenizer.tokenize(pair);
  const specials = tokenizer.specialTokenCount(second !== undefined);
  const total = first.length + (second?.length ?? 0) + specials;
  if (total <= limit) return tokenizer.addSpecialTokens(first, second);
  if (!truncation) {
    throw tokenLimitExceeded(field, total, limit);
  }
  const budget = limit - specials;
  if (budget < 0) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `a token limit of ${limit} leaves no room for the model's ${specials} special tokens`,
      { field },
    );
  }
  const cut = truncateContent(first, second, budget);
  return tokenizer.addSpecialTokens(cut.first, cut.second);
}

/**
 * Tokenizes texts (or pairs) into the int64 [n, longest] tensors the model declares, right-padded
 * with the tokenizer's pad id (mask 0). Over the token limit, truncation keeps [CLS] … [SEP] and
 * cuts the content (longest_first for pairs); without truncation it throws TOKEN_LIMIT_EXCEEDED
 * naming `text` or `text[i]`. A declared input it cannot build is INVALID_ARGUMENT.
 */
export function encodeInputs(options: EncodeInputsOptions): EncodedInputs {
  const { texts, pairs, tokenizer, inputNames, truncation } = options;
  checkInputNames(inputNames);
  if (texts.length === 0) {
    throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'no text to encode', { field: 'text' });
  }
  if (pairs !== undefined && pairs.length !== texts.length) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `text_pair has ${pairs.length} entries but text has ${texts.length}`,
      { field: 'text_pair' },
    );
  }
  const limit = Math.min(options.maxTokens ?? tokenizer.maxLength, tokenizer.maxLength);
  const batch = options.batch ?? texts.length !== 1;
  const field = options.inputField ?? 'text';
  const rows = texts.map((text, i) =>
    encodeOne(tokenizer, text, pairs?.[i], limit, truncation, batch ? `${field}[${i}]` : field),
  );
  return { tensors: packRows(rows, tokenizer.padId, inputNames), lengths: rows.map((row) => row.ids.length) };
}

/**
 * Rows of ids (with segment ids) as the int64 [rows, longest] tensors `inputNames` declares,
 * right-padded with `padId` (attention_mask 0 there). Names other than TEXT_INPUT_NAMES are skipped.
 */
export function packRows(
  rows: readonly EncodedText[],
  padId: number,
  inputNames: readonly string[],
): Record<string, Int64Tensor> {
  const sequence = Math.max(...rows.map((row) => row.ids.length));
  const dims: [number, number] = [rows.length, sequence];
  const size = rows.length * sequence;

  const inputIds = new BigInt64Array(size);
  const attentionMask = new BigInt64Array(size);
  const tokenTypeIds = new BigInt64Array(size);
  if (padId !== 0) inputIds.fill(BigInt(padId));
  rows.forEach((row, r) => {
    const offset = r * sequence;
    for (let i = 0; i < row.ids.length; i++) {
      inputIds[offset + i] = BigInt(row.ids[i] ?? 0);
      attentionMask[offset + i] = 1n;
      tokenTypeIds[offset + i] = BigInt(row.typeIds[i] ?? 0);
    }
  });

  const built: Record<TextInputName, BigInt64Array> = {
    input_ids: inputIds,
    attention_mask: attentionMask,
    token_type_ids: tokenTypeIds,
  };
  const tensors: Record<string, Int64Tensor> = {};
  for (const name of inputNames) {
    if (isTextInput(name)) tensors[name] = { datatype: 'INT64', dims: [...dims], data: built[name] };
  }
  return tensors;
}
