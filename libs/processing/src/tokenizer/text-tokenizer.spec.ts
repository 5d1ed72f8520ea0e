import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { miniId, miniTokenizerFiles, miniTokenizerJson } from '../../test/mini-tokenizer.js';
import { DEFAULT_MAX_LENGTH, loadTokenizer, tokenizerMaxLength } from './text-tokenizer.js';

const CLS = miniId('[CLS]');
const SEP = miniId('[SEP]');

describe('loadTokenizer', () => {
  const tokenizer = loadTokenizer(miniTokenizerFiles());

  it('encodes a text as [CLS] … [SEP] with segment ids 0, lowercasing and splitting word pieces', () => {
    expect(tokenizer.encode('Hello CATS.')).toEqual({
      ids: [CLS, miniId('hello'), miniId('cat'), miniId('##s'), miniId('.'), SEP],
      typeIds: [0, 0, 0, 0, 0, 0],
    });
  });

  it('encodes a pair as [CLS] A [SEP] B [SEP] with segment ids 1 on the second text', () => {
    expect(tokenizer.encode('hello', 'world')).toEqual({
      ids: [CLS, miniId('hello'), SEP, miniId('world'), SEP],
      typeIds: [0, 0, 0, 1, 1],
    });
  });

  it('keeps an empty second text as a pair rather than dropping it', () => {
    expect(tokenizer.encode('hello', '').ids).toEqual([CLS, miniId('hello'), SEP, SEP]);
  });

  it('maps unknown words to [UNK] and tokenizes content without special tokens', () => {
    expect(tokenizer.tokenize('hello zebra')).toEqual([miniId('hello'), miniId('[UNK]')]);
    expect(tokenizer.tokenize('')).toEqual([]);
    expect(tokenizer.specialTokenCount(false)).toBe(2);
    expect(tokenizer.specialTokenCount(true)).toBe(3);
  });

  it('caps model_max_length by max_position_embeddings', () => {
    expect(tokenizer.maxLength).toBe(16);
    const capped = loadTokenizer(
      miniTokenizerFiles({
        tokenizerConfig: { model_max_length: 1024 },
        config: { max_position_embeddings: 128 },
      }),
    );
    expect(capped.maxLength).toBe(128);
  });

  it('gives the same maxLength without tokenizer.json (what the registry records at preparation)', () => {
    const files = { tokenizerConfig: { model_max_length: 1024 }, config: { max_position_embeddings: 128 } };
    expect(tokenizerMaxLength(files)).toBe(loadTokenizer(miniTokenizerFiles(files)).maxLength);
    expect(
      tokenizerMaxLength({ tokenizerConfig: { model_max_length: 1e30 }, config: { n_positions: 64 } }),
    ).toBe(64);
    expect(tokenizerMaxLength({})).toBe(DEFAULT_MAX_LENGTH);
  });

  it('cleans tokenization spaces unless tokenizer_config.json says false, as the tokenizers decode', () => {
    expect(loadTokenizer({ tokenizerJson: miniTokenizerJson() }).cleanUpTokenizationSpaces).toBe(true);
    const kept = loadTokenizer(
      miniTokenizerFiles({ tokenizerConfig: { clean_up_tokenization_spaces: false } }),
    );
    expect(kept.cleanUpTokenizationSpaces).toBe(false);
  });

  it('reads the "unbounded" model_max_length of transformers as absent, and defaults to 512', () => {
    const unbounded = loadTokenizer(
      miniTokenizerFiles({
        tokenizerConfig: { model_max_length: 1e30 },
        config: { max_position_embeddings: 64 },
      }),
    );
    expect(unbounded.maxLength).toBe(64);
    const bare = loadTokenizer({ tokenizerJson: miniTokenizerJson() });
    expect(bare.maxLength).toBe(DEFAULT_MAX_LENGTH);
  });

  it('finds the pad id in tokenizer.json padding, then pad_token, then config.json pad_token_id', () => {
    expect(tokenizer.padId).toBe(miniId('[PAD]'));
    const fromPadding = loadTokenizer({ tokenizerJson: { ...miniTokenizerJson(), padding: { pad_id: 7 } } });
    expect(fromPadding.padId).toBe(7);
    const fromToken = loadTokenizer({
      tokenizerJson: miniTokenizerJson(),
      tokenizerConfig: { pad_token: { content: '[MASK]', __type: 'AddedToken' } },
    });
    expect(fromToken.padId).toBe(miniId('[MASK]'));
    const fromConfig = loadTokenizer({ tokenizerJson: miniTokenizerJson(), config: { pad_token_id: 5 } });
    expect(fromConfig.padId).toBe(5);
  });

  it('reads labels and problem type from config.json', () => {
    expect(tokenizer.modelConfig).toEqual({
      labels: ['NEGATIVE', 'POSITIVE'],
      multiLabel: false,
      maxPositionEmbeddings: 32,
    });
  });

  it('accepts the files as JSON text', () => {
    const fromText = loadTokenizer({
      tokenizerJson: JSON.stringify(miniTokenizerJson()),
      tokenizerConfig: '{"model_max_length": 8}',
      config: '{}',
    });
    expect(fromText.encode('hello').ids).toEqual([CLS, miniId('hello'), SEP]);
    expect(fromText.maxLength).toBe(8);
  });

  it('refuses malformed files with INVALID_ARGUMENT naming the file', () => {
    const invalid: unknown = expect.objectContaining({ code: ErrorCode.INVALID_ARGUMENT });
    expect(() => loadTokenizer({ tokenizerJson: '{not json' })).toThrow(/tokenizer\.json is not valid JSON/);
    expect(() => loadTokenizer({ tokenizerJson: '[]' })).toThrow(invalid);
    expect(() => loadTokenizer({ tokenizerJson: {} })).toThrow(/no model section/);
    expect(() => loadTokenizer({ tokenizerJson: miniTokenizerJson(), config: '42' })).toThrow(/config\.json/);
  });
});
