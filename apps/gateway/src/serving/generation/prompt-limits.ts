import { ErrorCode, ModelgateError } from '@modelgate/contracts';

/** The limits a prompt is checked against before any worker sees it. */
export interface PromptLimits {
  /** The model's n_positions / max_position_embeddings: prompt + new tokens must fit. */
  maxPositions?: number | undefined;
  /** The endpoint's token limit on the prompt, special tokens included (preprocessing.maxTokens), when set. */
  maxPromptTokens?: number | undefined;
  /**
   * The endpoint's preprocessing.truncation: true keeps the prompt's last tokens within
   * maxPromptTokens (the text the continuation follows, as TGI's `truncate`); false answers 422.
   */
  truncation: boolean;
}

/** What wraps content ids in the model's special tokens (a BOS for Llama-like tokenizers, none for GPT-2). */
export interface PromptTemplate {
  addSpecialTokens(first: readonly number[]): { ids: readonly number[] };
  specialTokenCount(pair: boolean): number;
}

/**
 * The ids a prompt is generated from: its content ids wrapped in the tokenizer's special tokens
 * (as Python's pipeline, which tokenizes with add_special_tokens), cut to the endpoint's limit from
 * the left when truncation is on. Refuses a prompt the model cannot continue: no tokens (400),
 * more tokens than the endpoint allows with truncation off (422), or prompt + max_new_tokens over
 * the model's positions (422, in TGI's words).
 */
export function fitPrompt(
  contentIds: readonly number[],
  maxNewTokens: number,
  template: PromptTemplate,
  limits: PromptLimits,
): number[] {
  if (contentIds.length === 0) {
    throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'text: the prompt must hold at least one token', {
      field: 'text',
    });
  }
  const { maxPromptTokens, maxPositions } = limits;
  let content = contentIds;
  const specials = template.specialTokenCount(false);
  if (maxPromptTokens !== undefined && content.length + specials > maxPromptTokens) {
    if (!limits.truncation || maxPromptTokens <= specials) {
      throw new ModelgateError(
        ErrorCode.TOKEN_LIMIT_EXCEEDED,
        `text: the prompt has ${content.length + specials} tokens, more than the endpoint's limit of ${maxPromptTokens}`,
        { field: 'text' },
      );
    }
    content = content.slice(content.length - (maxPromptTokens - specials));
  }
  const ids = [...template.addSpecialTokens(content).ids];
  if (maxPositions !== undefined && ids.length + maxNewTokens > maxPositions) {
    throw new ModelgateError(
      ErrorCode.TOKEN_LIMIT_EXCEEDED,
      `prompt tokens + max_new_tokens must be <= ${maxPositions} (the model's n_positions). ` +
        `Given: ${ids.length} prompt tokens and ${maxNewTokens} max_new_tokens`,
      { field: 'parameters.max_new_tokens' },
    );
  }
  return ids;
}

/** What decoding ids needs of a tokenizer. */
interface IdDecoder {
  readonly specialIds: ReadonlySet<number>;
  idToToken(id: number): string | undefined;
  decodeTokens(tokens: readonly string[]): string;
}

/**
 * The tokenizer's decode of ids, special tokens skipped unless `skipSpecial` is false; an id
 * outside the vocabulary is left out, or, with `onUnknown`, reported (it may throw).
 */
export function decodeIds(
  tokenizer: IdDecoder,
  ids: readonly number[],
  skipSpecial = true,
  onUnknown?: (id: number, index: number) => void,
): string {
  const tokens: string[] = [];
  ids.forEach((id, index) => {
    if (skipSpecial && tokenizer.specialIds.has(id)) return;
    const token = tokenizer.idToToken(id);
    if (token !== undefined) tokens.push(token);
    else onUnknown?.(id, index);
  });
  return tokens.length === 0 ? '' : tokenizer.decodeTokens(tokens);
}

/** The tokenizer's decode of ids, special tokens skipped (transformers' `skip_special_tokens: true`). */
export function decodeSkippingSpecial(tokenizer: IdDecoder): (ids: readonly number[]) => string {
  return (ids) => decodeIds(tokenizer, ids);
}

/** The text of one token as the tokenizer decodes it alone, special tokens shown (logprobs' `token`). */
export function tokenTextOf(tokenizer: {
  idToToken(id: number): string | undefined;
  decodeTokens(tokens: readonly string[]): string;
}): (id: number) => string {
  return (id) => {
    const token = tokenizer.idToToken(id);
    return token === undefined ? '' : tokenizer.decodeTokens([token]);
  };
}
