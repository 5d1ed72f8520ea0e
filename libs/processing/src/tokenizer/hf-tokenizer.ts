// The only file that imports the tokenizer library (STYLE: one adapter per third-party engine).
// @huggingface/tokenizers 0.2's .d.ts files import each other without file extensions, which
// nodenext resolution cannot follow, so TypeScript sees its classes as `any`: the library is
// given its real shape here and nothing else in the repo touches it.
import { Tokenizer } from '@huggingface/tokenizers';

/** The part of a tokenizer.json pipeline the gateway drives directly: text → content token ids. */
export interface ContentTokenizer {
  /** Ids of `text` after normalization, pre-tokenization and the model, without special tokens. */
  readonly tokenize: (text: string) => number[];
  /** The id of a vocabulary or added token; undefined when unknown. */
  readonly tokenToId: (token: string) => number | undefined;
}

interface LibraryTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): { ids: number[] };
  token_to_id(token: string): number | undefined;
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
  return {
    tokenize: (text) => tokenizer.encode(text, { add_special_tokens: false }).ids,
    tokenToId: (token) => tokenizer.token_to_id(token),
  };
}
