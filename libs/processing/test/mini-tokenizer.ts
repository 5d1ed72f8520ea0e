// Test support: a hand-written BERT-style tokenizer bundle with a tiny vocabulary, so unit tests
// exercise the real tokenizer library without generated fixtures.
import { BYTE_LEVEL_ALPHABET } from '../src/tokenizer/byte-level.js';
import { type TokenizerFiles } from '../src/tokenizer/text-tokenizer.js';

/** Vocabulary of the mini tokenizer, id = index. */
export const MINI_VOCAB = [
  '[PAD]',
  '[UNK]',
  '[CLS]',
  '[SEP]',
  '[MASK]',
  'hello',
  'world',
  'the',
  'cat',
  '##s',
  'sat',
  'on',
  'mat',
  '.',
  ',',
  'a',
  'b',
  'c',
  'd',
] as const;

/** Id of a mini-vocabulary token. */
export function miniId(token: (typeof MINI_VOCAB)[number]): number {
  return MINI_VOCAB.indexOf(token);
}

function specialEntry(content: string, id: number): Record<string, unknown> {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true };
}

/** tokenizer.json of the mini tokenizer (BertNormalizer, BertPreTokenizer, WordPiece, [CLS] A [SEP] B [SEP]). */
export function miniTokenizerJson(): Record<string, unknown> {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: MINI_VOCAB.slice(0, 5).map((token, id) => specialEntry(token, id)),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(MINI_VOCAB.map((token, id) => [token, id])),
    },
  };
}

/** The mini bundle: tokenizer.json, tokenizer_config.json (model_max_length 16) and config.json. */
export function miniTokenizerFiles(overrides: Partial<TokenizerFiles> = {}): TokenizerFiles {
  return {
    tokenizerJson: miniTokenizerJson(),
    tokenizerConfig: { model_max_length: 16, pad_token: '[PAD]', cls_token: '[CLS]', sep_token: '[SEP]' },
    config: { id2label: { 0: 'NEGATIVE', 1: 'POSITIVE' }, max_position_embeddings: 32 },
    ...overrides,
  };
}

/**
 * tokenizer.json of a mini byte-level BPE (GPT-2's pipeline): every byte a token, and merges that
 * make "Ġmy" and "Ġname" whole; the post-processor trims offsets when `trimOffsets`, and the
 * pre-tokenizer adds a space before the text when `addPrefixSpace` (RoBERTa's).
 */
export function miniByteLevelTokenizerJson(
  trimOffsets: boolean,
  addPrefixSpace = false,
): Record<string, unknown> {
  const byteLevel = {
    type: 'ByteLevel',
    add_prefix_space: addPrefixSpace,
    trim_offsets: trimOffsets,
    use_regex: true,
  };
  const merged = ['Ġm', 'Ġmy', 'Ġn', 'Ġna', 'Ġnam', 'Ġname'];
  const vocab = [...BYTE_LEVEL_ALPHABET, ...merged];
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [],
    normalizer: null,
    pre_tokenizer: byteLevel,
    post_processor: byteLevel,
    decoder: byteLevel,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      vocab: Object.fromEntries(vocab.map((token, id) => [token, id])),
      merges: ['Ġ m', 'Ġm y', 'Ġ n', 'Ġn a', 'Ġna m', 'Ġnam e'],
    },
  };
}
