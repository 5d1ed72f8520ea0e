// Special tokens as tokenizer.json's post_processor places them ([CLS] A [SEP] B [SEP] for BERT),
// applied to id sequences. Owning this step (rather than letting the library add the tokens) is
// what lets truncation cut the content and keep the special tokens, and count them in advance.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';

/** Token ids of one input with the segment (token type) id of each. */
export interface EncodedText {
  /** Token ids, special tokens included. */
  ids: number[];
  /** Segment id per token: 0 for the first text, 1 for the second of a pair (per the template). */
  typeIds: number[];
}

/** One step of a template: fixed special-token ids, or one of the two input sequences. */
export type TemplatePiece =
  | { kind: 'special'; ids: readonly number[]; typeId: number }
  | { kind: 'sequence'; sequence: 'A' | 'B'; typeId: number };

/** Where special tokens go for a single text and for a pair. */
export interface SpecialTokensTemplate {
  single: readonly TemplatePiece[];
  pair: readonly TemplatePiece[];
}

const A0: TemplatePiece = { kind: 'sequence', sequence: 'A', typeId: 0 };
const B1: TemplatePiece = { kind: 'sequence', sequence: 'B', typeId: 1 };

/** No post-processor: the texts as they are, the second with segment id 1. */
export const PLAIN_TEMPLATE: SpecialTokensTemplate = { single: [A0], pair: [A0, B1] };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): ModelgateError {
  return new ModelgateError(ErrorCode.INVALID_ARGUMENT, `tokenizer.json post_processor: ${message}`);
}

function special(ids: readonly number[], typeId: number): TemplatePiece {
  return { kind: 'special', ids, typeId };
}

/** `[token, id]` of BertProcessing / RobertaProcessing. */
function tokenPairId(value: unknown, field: string): number {
  if (Array.isArray(value) && typeof value[1] === 'number') return value[1];
  throw invalid(`${field} must be [token, id]`);
}

function templateItems(
  items: unknown,
  specialTokens: Json,
  tokenToId: (token: string) => number | undefined,
  field: string,
): TemplatePiece[] {
  if (!Array.isArray(items)) throw invalid(`${field} must be an array`);
  return items.map((item: unknown): TemplatePiece => {
    if (isObject(item) && isObject(item.SpecialToken)) {
      const { id, type_id: typeId = 0 } = item.SpecialToken;
      if (typeof id !== 'string' || typeof typeId !== 'number') throw invalid(`bad SpecialToken in ${field}`);
      const declared = specialTokens[id];
      if (isObject(declared) && Array.isArray(declared.ids)) {
        return special(
          declared.ids.filter((x): x is number => typeof x === 'number'),
          typeId,
        );
      }
      const single = tokenToId(id);
      if (single === undefined) throw invalid(`special token ${id} is not in the vocabulary`);
      return special([single], typeId);
    }
    if (isObject(item) && isObject(item.Sequence)) {
      const { id, type_id: typeId = 0 } = item.Sequence;
      if ((id !== 'A' && id !== 'B') || typeof typeId !== 'number') throw invalid(`bad Sequence in ${field}`);
      return { kind: 'sequence', sequence: id, typeId };
    }
    throw invalid(`${field} holds an item that is neither SpecialToken nor Sequence`);
  });
}

/**
 * The template of tokenizer.json's `post_processor` (TemplateProcessing, BertProcessing,
 * RobertaProcessing, ByteLevel, or a Sequence of those). Throws INVALID_ARGUMENT for others.
 */
export function parseSpecialTokensTemplate(
  postProcessor: unknown,
  tokenToId: (token: string) => number | undefined,
): SpecialTokensTemplate {
  if (postProcessor === null || postProcessor === undefined) return PLAIN_TEMPLATE;
  if (!isObject(postProcessor)) throw invalid('must be an object or null');
  switch (postProcessor.type) {
    case 'TemplateProcessing': {
      const specials = isObject(postProcessor.special_tokens) ? postProcessor.special_tokens : {};
      return {
        single: templateItems(postProcessor.single, specials, tokenToId, 'single'),
        pair: templateItems(postProcessor.pair, specials, tokenToId, 'pair'),
      };
    }
    case 'BertProcessing': {
      const cls = special([tokenPairId(postProcessor.cls, 'cls')], 0);
      const sep = tokenPairId(postProcessor.sep, 'sep');
      return {
        single: [cls, A0, special([sep], 0)],
        pair: [cls, A0, special([sep], 0), B1, special([sep], 1)],
      };
    }
    case 'RobertaProcessing': {
      // Segment ids as @huggingface/tokenizers assigns them; RoBERTa models take no token_type_ids.
      const cls = special([tokenPairId(postProcessor.cls, 'cls')], 0);
      const sep = tokenPairId(postProcessor.sep, 'sep');
      return {
        single: [cls, A0, special([sep], 0)],
        pair: [cls, A0, special([sep], 0), special([sep], 1), B1, special([sep], 1)],
      };
    }
    case 'ByteLevel':
      return PLAIN_TEMPLATE;
    case 'Sequence': {
      const processors = Array.isArray(postProcessor.processors)
        ? (postProcessor.processors as unknown[])
        : [];
      const templates = processors
        .map((processor) => parseSpecialTokensTemplate(processor, tokenToId))
        .filter((template) => template !== PLAIN_TEMPLATE);
      if (templates.length > 1) throw invalid('a Sequence may add special tokens in one processor only');
      return templates[0] ?? PLAIN_TEMPLATE;
    }
    default:
      throw invalid(`unsupported type ${JSON.stringify(postProcessor.type)}`);
  }
}

/** Number of special tokens the template adds to a single text or to a pair. */
export function countSpecialTokens(template: SpecialTokensTemplate, pair: boolean): number {
  let count = 0;
  for (const piece of pair ? template.pair : template.single) {
    if (piece.kind === 'special') count += piece.ids.length;
  }
  return count;
}

/** `first` (and `second`, for a pair) with the template's special tokens and segment ids. */
export function applySpecialTokensTemplate(
  template: SpecialTokensTemplate,
  first: readonly number[],
  second?: readonly number[],
): EncodedText {
  const ids: number[] = [];
  const typeIds: number[] = [];
  for (const piece of second === undefined ? template.single : template.pair) {
    const source = piece.kind === 'special' ? piece.ids : piece.sequence === 'A' ? first : (second ?? []);
    for (const id of source) {
      ids.push(id);
      typeIds.push(piece.typeId);
    }
  }
  return { ids, typeIds };
}
