// Texts → the tokens a model would read, for `POST /serve/:endpoint/tokenize`: ids, vocabulary
// tokens, character offsets and which text each token came from, after the truncation a serve
// request would get. No model runs.
import { z } from 'zod';
import { tokenLimitExceeded, truncateContent } from '../preprocessing/truncate-tokens.js';
import { type TextTokenizer } from './text-tokenizer.js';
import { type CharSpan } from './token-offsets.js';

/** The tokens of one input. Arrays run in parallel, one entry per token. */
export interface TokenizedText {
  ids: number[];
  /** Vocabulary tokens ("hello", "##ing", "[CLS]"). */
  tokens: string[];
  /**
   * [start, end) in the text the token came from, counted in Unicode code points as Python and
   * Hugging Face count characters; null for special tokens (and any token the alignment could not place).
   */
  offsets: (CharSpan | null)[];
  /** 0 for `text`, 1 for `text_pair`, null for special tokens. */
  sequence_ids: (0 | 1 | null)[];
}

/** {@link TokenizedText} as a zod schema (OpenAPI). */
export const tokenizedTextSchema = z.object({
  ids: z.array(z.int()).describe('Token ids, special tokens included unless add_special_tokens is false'),
  tokens: z.array(z.string()).describe('The vocabulary token of each id'),
  offsets: z
    .array(z.tuple([z.int(), z.int()]).nullable())
    .describe('[start, end) in Unicode code points of the text the token came from; null for special tokens'),
  sequence_ids: z
    .array(z.union([z.literal(0), z.literal(1)]).nullable())
    .describe('0: from text, 1: from text_pair, null: a special token'),
});

/** What {@link tokenizeTexts} needs. */
export interface TokenizeTextsOptions {
  texts: readonly string[];
  pairs?: readonly string[] | undefined;
  tokenizer: TextTokenizer;
  /** Add the template's special tokens. */
  addSpecialTokens: boolean;
  /**
   * Token limit per input (special tokens included when added); capped by tokenizer.maxLength
   * unless `prompt`, and tokenizer.maxLength when absent (a prompt: no limit).
   */
  maxTokens?: number | undefined;
  /**
   * Tokenize as a text-generation prompt: one text, the limit the endpoint's maxTokens alone (the
   * model's positions are checked against max_new_tokens when generating), and a cut keeps the
   * last tokens (prompt-limits.ts in the gateway), not the first.
   */
  prompt?: boolean;
  /** Cut inputs over the limit (as a serve request would be) or refuse them with TOKEN_LIMIT_EXCEEDED. */
  truncation: boolean;
  /** Whether the request sent an array (errors name `text[i]`). */
  batch: boolean;
}

interface Content {
  ids: number[];
  offsets: (CharSpan | undefined)[];
}

function layOut(
  tokenizer: TextTokenizer,
  first: Content,
  second: Content | undefined,
  addSpecialTokens: boolean,
): TokenizedText {
  const sources: { sequence: 0 | 1; content: Content }[] = [{ sequence: 0, content: first }];
  if (second !== undefined) sources.push({ sequence: 1, content: second });
  // Negative markers stand for content positions; what the template puts around them is special.
  const marker = (sequence: 0 | 1) => (_: number, i: number) =>
    -1 - (sequence === 0 ? i : first.ids.length + i);
  const slots = addSpecialTokens
    ? tokenizer.addSpecialTokens(first.ids.map(marker(0)), second?.ids.map(marker(1))).ids
    : [...first.ids.map(marker(0)), ...(second?.ids.map(marker(1)) ?? [])];
  const out: TokenizedText = { ids: [], tokens: [], offsets: [], sequence_ids: [] };
  for (const slot of slots) {
    const position = -1 - slot;
    const source = slot >= 0 ? undefined : position < first.ids.length ? sources[0] : sources[1];
    const index = source?.sequence === 1 ? position - first.ids.length : position;
    const id = source === undefined ? slot : (source.content.ids[index] ?? 0);
    out.ids.push(id);
    out.tokens.push(tokenizer.idToToken(id) ?? '');
    out.offsets.push(source?.content.offsets[index] ?? null);
    out.sequence_ids.push(source?.sequence ?? null);
  }
  return out;
}

function cut(content: Content, keep: number, side: 'first' | 'last' = 'first'): Content {
  if (keep >= content.ids.length) return content;
  const from = side === 'first' ? 0 : content.ids.length - keep;
  return { ids: content.ids.slice(from, from + keep), offsets: content.offsets.slice(from, from + keep) };
}

/**
 * Tokenizes texts (or pairs) as the serve path does, keeping each token's offsets. Over the limit,
 * truncation cuts the content (longest first for pairs; a prompt from its start) and keeps the
 * special tokens; without it,
 * TOKEN_LIMIT_EXCEEDED (422) names `text` or `text[i]`, as /serve would.
 */
export function tokenizeTexts(options: TokenizeTextsOptions): TokenizedText[] {
  const { tokenizer, texts, pairs, addSpecialTokens, truncation, prompt = false } = options;
  const limit = prompt
    ? (options.maxTokens ?? Number.POSITIVE_INFINITY)
    : Math.min(options.maxTokens ?? tokenizer.maxLength, tokenizer.maxLength);
  return texts.map((text, i) => {
    const field = options.batch ? `text[${i}]` : 'text';
    const pair = pairs?.[i];
    const first = tokenizer.tokenizeWithOffsets(text);
    const second = pair === undefined ? undefined : tokenizer.tokenizeWithOffsets(pair);
    const specials = addSpecialTokens ? tokenizer.specialTokenCount(second !== undefined) : 0;
    const total = first.ids.length + (second?.ids.length ?? 0) + specials;
    if (total <= limit) return layOut(tokenizer, first, second, addSpecialTokens);
    if (!truncation) {
      throw tokenLimitExceeded(field, total, limit);
    }
    if (prompt)
      return layOut(
        tokenizer,
        cut(first, Math.max(0, limit - specials), 'last'),
        undefined,
        addSpecialTokens,
      );
    const kept = truncateContent(first.ids, second?.ids, Math.max(0, limit - specials));
    const keptSecond = second === undefined ? undefined : cut(second, kept.second?.length ?? 0);
    return layOut(tokenizer, cut(first, kept.first.length), keptSecond, addSpecialTokens);
  });
}
