// A model's tokenizer as the gateway uses it: tokenizer.json's pipeline for the content, our own
// special-token template around it (so truncation can keep [CLS] … [SEP]), and the limits and
// padding id that tokenizer_config.json and config.json give.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { addedTokenContent } from './added-token.js';
import { type ChatTemplate, loadChatTemplate } from './chat-template.js';
import { type ContentTokenizer, createHfTokenizer } from './hf-tokenizer.js';
import { type ModelConfigFacts, readModelConfig } from './model-config.js';
import {
  type EncodedText,
  type SpecialTokensTemplate,
  applySpecialTokensTemplate,
  countSpecialTokens,
  parseSpecialTokensTemplate,
} from './special-tokens-template.js';

/** Longest input, in tokens, when neither tokenizer_config.json nor config.json says. */
export const DEFAULT_MAX_LENGTH = 512;

// tokenizer_config.json writes "no limit" as a huge number (1e30 in transformers).
const UNBOUNDED_MODEL_MAX_LENGTH = 1e9;

/** A loaded tokenizer bundle: encode text to ids, plus the facts pre- and post-processing need. */
export interface TextTokenizer {
  /** Longest input in tokens, special tokens included: model_max_length capped by max_position_embeddings. */
  readonly maxLength: number;
  /** The id padding positions get (tokenizer.json padding, else pad_token, else config pad_token_id, else 0). */
  readonly padId: number;
  /** Labels, problem type and limits read from config.json. */
  readonly modelConfig: ModelConfigFacts;
  /** `text` (and `pair`) with special tokens and segment ids, untruncated. */
  encode(text: string, pair?: string): EncodedText;
  /** Content ids of `text`, without special tokens. */
  tokenize(text: string): number[];
  /** Wraps content ids in the special tokens of a single text, or of a pair when `second` is given. */
  addSpecialTokens(first: readonly number[], second?: readonly number[]): EncodedText;
  /** How many special tokens `addSpecialTokens` adds to a single text (false) or a pair (true). */
  specialTokenCount(pair: boolean): number;
  /** Position of the first content token in a single text's ids (1 after BERT's [CLS]). */
  readonly contentStart: number;
  /** Content ids of `text` with each one's code-point span in `text` (token-offsets.ts). */
  readonly tokenizeWithOffsets: ContentTokenizer['tokenizeWithOffsets'];
  /** The vocabulary token of an id. */
  readonly idToToken: ContentTokenizer['idToToken'];
  /** Tokens joined as text by the decoder, as Python's `convert_tokens_to_string`. */
  readonly decodeTokens: ContentTokenizer['decodeTokens'];
  /** Ids of special tokens. */
  readonly specialIds: ContentTokenizer['specialIds'];
  /** The unknown token's id, when the model has one. */
  readonly unknownId: ContentTokenizer['unknownId'];
  /** Prefix of word-continuation tokens (WordPiece "##"). */
  readonly continuingSubwordPrefix: ContentTokenizer['continuingSubwordPrefix'];
  /** Whether printable-ASCII text is tokenized past the library, offsets included (BERT's pipeline, ascii-wordpiece.ts). */
  readonly asciiFastPath: ContentTokenizer['asciiFastPath'];
  /**
   * tokenizer_config.json's `clean_up_tokenization_spaces` (true when absent, as the Hugging Face
   * tokenizers decode): generated text drops the space before punctuation and contractions.
   */
  readonly cleanUpTokenizationSpaces: boolean;
  /** tokenizer_config.json's chat_template, when it has one (chat-template.ts). */
  readonly chatTemplate: ChatTemplate | undefined;
}

/** The files of a tokenizer bundle, as JSON text or parsed. */
export interface TokenizerFiles {
  /** tokenizer.json. */
  tokenizerJson: string | object;
  /** tokenizer_config.json. */
  tokenizerConfig?: string | object;
  /** The model's config.json. */
  config?: string | object;
  /** generation_config.json (decoders): its eos_token_id wins over config.json's. */
  generationConfig?: string | object;
}

type Json = Record<string, unknown>;

function asObject(value: string | object | undefined, file: string): Json {
  if (value === undefined) return {};
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${file} is not valid JSON`, {}, { cause: error });
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${file} must hold a JSON object`);
  }
  return parsed as Json;
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/**
 * The longest input, in tokens, a model with these files takes: what {@link loadTokenizer} gives
 * as `maxLength` (tokenizer_config.json's model_max_length, capped by config.json's positions), read
 * without tokenizer.json. Throws as loadTokenizer does when a file is malformed.
 */
export function tokenizerMaxLength(files: Omit<TokenizerFiles, 'tokenizerJson'>): number {
  const modelConfig = readModelConfig(
    asObject(files.config, 'config.json'),
    asObject(files.generationConfig, 'generation_config.json'),
  );
  return maxLengthOf(asObject(files.tokenizerConfig, 'tokenizer_config.json'), modelConfig);
}

function maxLengthOf(tokenizerConfig: Json, modelConfig: ModelConfigFacts): number {
  const declared = positiveInt(tokenizerConfig.model_max_length);
  const fromTokenizer =
    declared !== undefined && declared < UNBOUNDED_MODEL_MAX_LENGTH ? declared : undefined;
  const limits = [fromTokenizer, modelConfig.maxPositionEmbeddings].filter((n) => n !== undefined);
  return limits.length === 0 ? DEFAULT_MAX_LENGTH : Math.min(...limits);
}

function padIdOf(
  tokenizerJson: Json,
  tokenizerConfig: Json,
  config: Json,
  tokenToId: (token: string) => number | undefined,
): number {
  const padding = tokenizerJson.padding;
  if (typeof padding === 'object' && padding !== null && 'pad_id' in padding) {
    const id = padding.pad_id;
    if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) return id;
  }
  const padToken = addedTokenContent(tokenizerConfig.pad_token);
  const fromToken = padToken === undefined ? undefined : tokenToId(padToken);
  if (fromToken !== undefined) return fromToken;
  const fromConfig = config.pad_token_id;
  return typeof fromConfig === 'number' && Number.isSafeInteger(fromConfig) && fromConfig >= 0
    ? fromConfig
    : 0;
}

/**
 * Loads a tokenizer bundle (tokenizer.json, optional tokenizer_config.json and config.json).
 * Throws ModelgateError(INVALID_ARGUMENT) naming the file when one is malformed.
 */
export function loadTokenizer(files: TokenizerFiles): TextTokenizer {
  const tokenizerJson = asObject(files.tokenizerJson, 'tokenizer.json');
  const tokenizerConfig = asObject(files.tokenizerConfig, 'tokenizer_config.json');
  const config = asObject(files.config, 'config.json');
  const generationConfig = asObject(files.generationConfig, 'generation_config.json');
  if (typeof tokenizerJson.model !== 'object' || tokenizerJson.model === null) {
    throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'tokenizer.json has no model section');
  }

  let content: ReturnType<typeof createHfTokenizer>;
  try {
    content = createHfTokenizer(tokenizerJson, tokenizerConfig);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `tokenizer.json cannot be loaded: ${reason}`,
      {},
      {
        cause: error,
      },
    );
  }
  const template: SpecialTokensTemplate = parseSpecialTokensTemplate(
    tokenizerJson.post_processor,
    content.tokenToId,
  );
  const specials = { single: countSpecialTokens(template, false), pair: countSpecialTokens(template, true) };
  const modelConfig = readModelConfig(config, generationConfig);

  return {
    maxLength: maxLengthOf(tokenizerConfig, modelConfig),
    padId: padIdOf(tokenizerJson, tokenizerConfig, config, content.tokenToId),
    modelConfig,
    tokenize: content.tokenize,
    addSpecialTokens: (first, second) => applySpecialTokensTemplate(template, first, second),
    specialTokenCount: (pair) => (pair ? specials.pair : specials.single),
    // A marker id that cannot be a token shows where the content lands between the special tokens.
    contentStart: Math.max(0, applySpecialTokensTemplate(template, [-1]).ids.indexOf(-1)),
    tokenizeWithOffsets: content.tokenizeWithOffsets,
    idToToken: content.idToToken,
    decodeTokens: content.decodeTokens,
    specialIds: content.specialIds,
    unknownId: content.unknownId,
    continuingSubwordPrefix: content.continuingSubwordPrefix,
    asciiFastPath: content.asciiFastPath,
    cleanUpTokenizationSpaces: tokenizerConfig.clean_up_tokenization_spaces !== false,
    chatTemplate: loadChatTemplate(tokenizerConfig),
    encode: (text, pair) =>
      applySpecialTokensTemplate(
        template,
        content.tokenize(text),
        pair === undefined ? undefined : content.tokenize(pair),
      ),
  };
}
