// The only file that imports the tokenizer library (STYLE: one adapter per third-party engine).
// @huggingface/tokenizers 0.2's .d.ts files import each other without file extensions, which
// nodenext resolution cannot follow, so TypeScript sees its classes as `any`: the library is
// given its real shape here and nothing else in the repo touches it.
import { Tokenizer } from '@huggingface/tokenizers';
import { type AsciiWordPiece, compileAsciiWordPiece } from './ascii-wordpiece.js';
import { type CharSpan, type TokenizerSteps, alignTokens } from './token-offsets.js';

/** The part of a tokenizer.json pipeline the gateway drives directly: text → content token ids. */
export interface ContentTokenizer {
  /** Ids of `text` after normalization, pre-tokenization and the model, without special tokens. */
  readonly tokenize: (text: string) => number[];
  /** The id of a vocabulary or added token; undefined when unknown. */
  readonly tokenToId: (token: string) => number | undefined;
  /** Like `tokenize`, with each id's code-point span in `text` (undefined where it cannot be placed). */
  readonly tokenizeWithOffsets: (text: string) => { ids: number[]; offsets: (CharSpan | undefined)[] };
  /** The vocabulary token of an id ("##ing", "[UNK]"); undefined when out of range. */
  readonly idToToken: (id: number) => string | undefined;
  /** Tokens joined as text by tokenizer.json's decoder (Python's `convert_tokens_to_string`). */
  readonly decodeTokens: (tokens: readonly string[]) => string;
  /** Ids of the special added tokens ([CLS], [SEP], [PAD], …). */
  readonly specialIds: ReadonlySet<number>;
  /** The id of the unknown token, when the model has one. */
  readonly unknownId: number | undefined;
  /** Prefix of word-continuation tokens (WordPiece "##"); undefined for other models. */
  readonly continuingSubwordPrefix: string | undefined;
  /** Whether printable-ASCII text is tokenized past the library, offsets included (ascii-wordpiece.ts): BERT's pipeline. */
  readonly asciiFastPath: boolean;
}

interface LibraryTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): { ids: number[] };
  token_to_id(token: string): number | undefined;
  id_to_token(id: number): string | undefined;
  all_special_ids: number[];
  decoder: ((tokens: string[]) => string) | null;
  // Internals the offset alignment replays (token-offsets.ts); the library exposes no offsets.
  splitter_unnormalized: { split(text: string): string[] };
  splitter_normalized: { split(text: string): string[] };
  added_tokens_map: Map<string, { id: number }>;
  normalizer: ((text: string) => string) | null;
  remove_space?: unknown;
  do_lowercase_and_remove_accent?: unknown;
  pre_tokenizer: ((text: string, options: { section_index: number }) => string[]) | null;
  model: ((words: string[]) => string[]) & {
    config: { continuing_subword_prefix?: unknown };
    unk_token?: unknown;
    unk_token_id?: unknown;
    tokens_to_ids: Map<string, number>;
    max_input_chars_per_word?: unknown;
    fuse_unk?: unknown;
  };
}

/** A tokenizer.json section's `type`, when it is an object that has one. */
function typeOf(section: unknown): unknown {
  return typeof section === 'object' && section !== null ? (section as { type?: unknown }).type : undefined;
}

/**
 * The ASCII fast path (ascii-wordpiece.ts) over the library's own tables, when tokenizer.json is
 * BERT's pipeline exactly (BertNormalizer, BertPreTokenizer, WordPiece) and nothing in
 * tokenizer_config.json changes it; undefined otherwise, and the library tokenizes everything.
 */
function asciiFastPath(
  json: Record<string, unknown>,
  tokenizer: LibraryTokenizer,
): AsciiWordPiece | undefined {
  const normalizer = json.normalizer as { lowercase?: unknown } | null | undefined;
  const model = tokenizer.model;
  const { unk_token_id: unknownId, max_input_chars_per_word: maxChars } = model;
  const prefix = model.config.continuing_subword_prefix;
  const bert =
    typeOf(normalizer) === 'BertNormalizer' &&
    typeOf(json.pre_tokenizer) === 'BertPreTokenizer' &&
    typeOf(json.model) === 'WordPiece';
  if (!bert || model.fuse_unk === true || tokenizer.remove_space === true) return undefined;
  if (tokenizer.do_lowercase_and_remove_accent) return undefined;
  if (typeof unknownId !== 'number' || typeof maxChars !== 'number' || typeof prefix !== 'string') {
    return undefined;
  }
  const added = tokenizer.added_tokens_map;
  const vocabulary = model.tokens_to_ids;
  return compileAsciiWordPiece({
    lowercase: Boolean(normalizer?.lowercase),
    vocabulary,
    idOf: (token) => added.get(token)?.id ?? vocabulary.get(token) ?? unknownId,
    unknownId,
    continuingSubwordPrefix: prefix,
    maxInputCharsPerWord: maxChars,
    addedTokenStarts: [...added.keys()]
      .filter((content) => content.length > 0)
      .map((content) => content[0] as string),
  });
}

/** The sections of a tokenizer.json step: itself, or the steps of a Sequence. */
function stepsIn(section: unknown, list: 'pretokenizers' | 'processors'): unknown[] {
  if (typeOf(section) !== 'Sequence') return [section];
  const inner = (section as Record<string, unknown>)[list];
  return Array.isArray(inner) ? inner : [];
}

/** Whether tokenizer.json pre-tokenizes to bytes, and whether its post-processor trims offsets. */
function byteLevelOf(json: Record<string, unknown>): TokenizerSteps['byteLevel'] {
  if (!stepsIn(json.pre_tokenizer, 'pretokenizers').some((step) => typeOf(step) === 'ByteLevel'))
    return undefined;
  const processor = stepsIn(json.post_processor, 'processors').find(
    (step) => typeOf(step) === 'ByteLevel' || typeOf(step) === 'RobertaProcessing',
  ) as { trim_offsets?: unknown } | undefined;
  // Both processors trim unless told not to; without one, offsets keep their spaces.
  return { trimOffsets: processor !== undefined && processor.trim_offsets !== false };
}

function stepsOf(tokenizer: LibraryTokenizer, json: Record<string, unknown>): TokenizerSteps {
  const prefix = tokenizer.model.config.continuing_subword_prefix;
  const unknown = tokenizer.model.unk_token;
  const byteLevel = byteLevelOf(json);
  return {
    ...(byteLevel === undefined ? {} : { byteLevel }),
    splitAddedTokens: (text) => tokenizer.splitter_unnormalized.split(text),
    splitNormalizedAddedTokens: (text) => tokenizer.splitter_normalized.split(text),
    isAddedToken: (section) => tokenizer.added_tokens_map.has(section),
    normalize: (text) => (tokenizer.normalizer ? tokenizer.normalizer(text) : text),
    preTokenize: (text) =>
      tokenizer.pre_tokenizer ? tokenizer.pre_tokenizer(text, { section_index: 0 }) : [text],
    wordTokens: (word) => tokenizer.model([word]),
    // BPE's is '' (none): only a real prefix marks continuations (WordPiece's "##").
    continuingSubwordPrefix: typeof prefix === 'string' && prefix !== '' ? prefix : undefined,
    unknownToken: typeof unknown === 'string' ? unknown : undefined,
  };
}

const TokenizerClass = Tokenizer as unknown as new (
  tokenizerJson: object,
  tokenizerConfig: object,
) => LibraryTokenizer;

/**
 * Builds the content tokenizer of a Hugging Face tokenizer.json (+ tokenizer_config.json).
 * Throws whatever the library throws on a malformed file; callers wrap it.
 */
export function createHfTokenizer(tokenizerJson: object, tokenizerConfig: object): ContentTokenizer {
  const tokenizer = new TokenizerClass(tokenizerJson, tokenizerConfig);
  const steps = stepsOf(tokenizer, tokenizerJson as Record<string, unknown>);
  const fast = asciiFastPath(tokenizerJson as Record<string, unknown>, tokenizer);
  const libraryIds = (text: string): number[] => tokenizer.encode(text, { add_special_tokens: false }).ids;
  return {
    tokenize: fast ? (text) => fast.ids(text) ?? libraryIds(text) : libraryIds,
    tokenToId: (token) => tokenizer.token_to_id(token),
    tokenizeWithOffsets: (text) => {
      const quick = fast?.withOffsets(text);
      if (quick) return quick;
      const ids = tokenizer.encode(text, { add_special_tokens: false }).ids;
      const aligned = alignTokens(text, steps);
      // The replay must give the library's tokens; where it does not, no offset is trusted.
      const agrees = aligned.tokens.length === ids.length;
      return { ids, offsets: agrees ? aligned.offsets : ids.map(() => undefined) };
    },
    idToToken: (id) => tokenizer.id_to_token(id),
    decodeTokens: (tokens) => (tokenizer.decoder ? tokenizer.decoder([...tokens]) : tokens.join(' ')),
    specialIds: new Set(tokenizer.all_special_ids),
    unknownId: typeof tokenizer.model.unk_token_id === 'number' ? tokenizer.model.unk_token_id : undefined,
    continuingSubwordPrefix: steps.continuingSubwordPrefix,
    asciiFastPath: fast !== undefined,
  };
}
