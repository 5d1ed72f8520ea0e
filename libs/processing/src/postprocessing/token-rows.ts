// A token-classification answer from the tensors of a request: each row's ids are matched back
// to its text's tokens (with their character spans), then classify-tokens turns the row's logits
// into entities. Truncated rows keep the spans of the tokens the model saw.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type TokenClassificationOptions } from '../preprocessing/token-classification-request.js';
import { type TextTokenizer } from '../tokenizer/text-tokenizer.js';
import {
  type ClassifiedToken,
  type GroupedEntity,
  type TokenEntity,
  classifyTokens,
} from './token-classify.js';

/** What {@link classifyTokenRows} reads. */
export interface TokenClassificationInput {
  /** The request's texts, one per row. */
  texts: readonly string[];
  tokenizer: TextTokenizer;
  /** input_ids as sent to the model, [rows, sequence] row-major. */
  inputIds: BigInt64Array;
  /** attention_mask as sent (1 for real tokens); every position counts when absent. */
  attentionMask: BigInt64Array | undefined;
  /** The model's logits, [rows, sequence, labels] row-major. */
  logits: Float32Array;
  logitsDims: readonly number[];
  /** Label names by index (config.json id2label). */
  labels: readonly string[] | undefined;
  options: TokenClassificationOptions;
}

function internal(message: string): ModelgateError {
  return new ModelgateError(ErrorCode.INTERNAL, message);
}

function rowTokens(input: TokenClassificationInput, row: number, sequence: number): ClassifiedToken[] {
  const { tokenizer } = input;
  const content = tokenizer.tokenizeWithOffsets(input.texts[row] ?? '');
  const tokens: ClassifiedToken[] = [];
  for (let index = 0; index < sequence; index++) {
    const at = row * sequence + index;
    if (input.attentionMask !== undefined && input.attentionMask[at] === 0n) continue;
    const id = Number(input.inputIds[at] ?? 0n);
    const contentIndex = index - tokenizer.contentStart;
    const isContent =
      contentIndex >= 0 && contentIndex < content.ids.length && content.ids[contentIndex] === id;
    if (!isContent && !tokenizer.specialIds.has(id)) {
      throw internal(
        `token ${index} of input ${row} (id ${id}) is neither the text's token nor a special one`,
      );
    }
    // Only the tokens the template adds are special, as in Python's special_tokens_mask: [UNK],
    // or a "[SEP]" written in the text, are words of the text.
    tokens.push({
      token: tokenizer.idToToken(id) ?? '',
      index,
      span: isContent ? content.offsets[contentIndex] : undefined,
      special: !isContent,
      unknown: id === tokenizer.unknownId,
    });
  }
  return tokens;
}

/**
 * The entities of every input, in order. Throws INTERNAL when the logits' shape, the labels and
 * the input ids disagree (a model that passed preparation never does).
 */
export function classifyTokenRows(input: TokenClassificationInput): (TokenEntity | GroupedEntity)[][] {
  const [rows, sequence, width] = input.logitsDims;
  const labels = input.labels;
  if (input.logitsDims.length !== 3 || rows === undefined || sequence === undefined || width === undefined) {
    throw internal(
      `token classifier output has dims [${input.logitsDims.join(',')}]; expected [batch, sequence, labels]`,
    );
  }
  if (rows !== input.texts.length || rows * sequence !== input.inputIds.length) {
    throw internal(`token classifier output has ${rows}×${sequence} rows for ${input.texts.length} inputs`);
  }
  if (labels === undefined || labels.length !== width) {
    throw internal(
      `the model outputs ${width} scores per token but has ${labels?.length ?? 'no'} labels (config.json id2label)`,
    );
  }
  const rowSize = sequence * width;
  return input.texts.map((text, row) =>
    classifyTokens(
      text,
      rowTokens(input, row, sequence),
      input.logits.subarray(row * rowSize, (row + 1) * rowSize),
      {
        labels,
        aggregationStrategy: input.options.aggregationStrategy,
        ignoreLabels: input.options.ignoreLabels,
        joinTokens: (tokens) => input.tokenizer.decodeTokens(tokens),
        continuingSubwordPrefix: input.tokenizer.continuingSubwordPrefix,
      },
    ),
  );
}
