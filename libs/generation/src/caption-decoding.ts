// How an image-to-text (vision-encoder-decoder) model's decoder starts and stops, read from its
// config.json and generation_config.json the way transformers.js' generate() reads them:
//   1. config.json's top-level fields, overridden by those of its `decoder`, `generator` and
//      `text_config` sub-configs, in that order (decoders keep their generation ids there);
//   2. overridden by every field of generation_config.json (a `null` there overrides too, an
//      absent field does not);
//   3. the decoder starts from decoder_start_token_id, else bos_token_id;
//   4. eos_token_id (an id or a list) ends a caption; none: only max_new_tokens does.

import { asJsonObject, isPositiveInt } from './config-fields.js';

/** The generation facts of a captioning model. */
export interface CaptionDecoding {
  /** The token the decoder reads first (its prompt: one token). */
  decoderStartTokenId: number;
  /** Ids that end a caption; empty when the model names none. */
  eosTokenIds: number[];
  /** The decoder's n_positions / max_position_embeddings, when it says: start + new tokens must fit. */
  maxPositions?: number;
  /**
   * New tokens when a request names no max_new_tokens, as transformers.js decides: the configs'
   * max_new_tokens, else their max_length (default 20) less the start token.
   */
  defaultMaxNewTokens: number;
}

/** transformers.js' GenerationConfig default of max_length (start token included). */
const DEFAULT_MAX_LENGTH = 20;

/** Sub-configs whose fields override config.json's top level, in this order (transformers.js). */
const GENERATION_SUB_CONFIGS = ['decoder', 'generator', 'text_config'] as const;

function isTokenId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** config.json with its sub-configs merged over it, then generation_config.json over that. */
function mergedGenerationFields(config: unknown, generationConfig: unknown): Record<string, unknown> {
  const top = asJsonObject(config) ?? {};
  const merged: Record<string, unknown> = { ...top };
  for (const key of GENERATION_SUB_CONFIGS) {
    const sub = asJsonObject(top[key]);
    if (sub) Object.assign(merged, sub);
  }
  for (const [key, value] of Object.entries(asJsonObject(generationConfig) ?? {})) merged[key] = value;
  return merged;
}

/**
 * The decoder start id, EOS ids and positions of a vision-encoder-decoder model from its parsed
 * config.json and generation_config.json (either may be undefined), as transformers.js decides
 * them (see the header); or why not, as a sentence, when neither a decoder_start_token_id nor a
 * bos_token_id is an id, or eos_token_id is neither an id nor a list of ids. The gateway decodes
 * with it and preparation refuses what it refuses, so the two never disagree.
 */
export function readCaptionDecoding(config: unknown, generationConfig: unknown): CaptionDecoding | string {
  const fields = mergedGenerationFields(config, generationConfig);
  const start = fields.decoder_start_token_id ?? fields.bos_token_id;
  if (!isTokenId(start)) {
    return start === undefined || start === null
      ? 'neither generation_config.json nor config.json (or its decoder) names a decoder_start_token_id or bos_token_id'
      : `decoder_start_token_id must be one token id, not ${JSON.stringify(start).slice(0, 40)}`;
  }
  const eos = fields.eos_token_id;
  const eosTokenIds = eos === undefined || eos === null ? [] : Array.isArray(eos) ? eos : [eos];
  if (!eosTokenIds.every(isTokenId)) {
    return `eos_token_id must be a token id or a list of them, not ${JSON.stringify(eos).slice(0, 40)}`;
  }
  const positions = [fields.max_position_embeddings, fields.n_positions].find(isPositiveInt);
  const maxLength = isPositiveInt(fields.max_length) ? fields.max_length : DEFAULT_MAX_LENGTH;
  const defaultMaxNewTokens = isPositiveInt(fields.max_new_tokens)
    ? fields.max_new_tokens
    : Math.max(1, maxLength - 1);
  return {
    decoderStartTokenId: start,
    eosTokenIds,
    defaultMaxNewTokens,
    ...(positions === undefined ? {} : { maxPositions: positions }),
  };
}
