// A decoder's generation_config.json as defaults: which of its fields modelgate applies (read
// once, at preparation), and how a request's parameters, the model's defaults and a route's
// built-in ones combine (request > model file > built-in, as Hugging Face's generate lets a call's
// kwargs override the model's GenerationConfig). Pure: no I/O.
import {
  DEFAULT_MAX_NEW_TOKENS,
  type DecodingDefaults,
  type GenerationParams,
  MAX_NEW_TOKENS_LIMIT,
  type TextGenerationParameters,
  toGenerationParams,
} from './params.js';

export { type DecodingDefaults } from './params.js';

/** What preparation reads of generation_config.json: the defaults that apply, and the fields that do not. */
export interface GenerationConfigDefaults {
  defaults: DecodingDefaults;
  /** `field=value` for each field set to something modelgate does not do (beam search, typical_p, …). */
  unsupported: string[];
}

/** Fields that are ids, metadata or output switches: read elsewhere (eos) or without effect on the text. */
const NOT_DEFAULTS = new Set([
  'bos_token_id',
  'eos_token_id',
  'pad_token_id',
  'decoder_start_token_id',
  'transformers_version',
  '_from_model_config',
  'use_cache',
  'output_attentions',
  'output_hidden_states',
  'output_scores',
  'output_logits',
  'return_dict_in_generate',
  'cache_implementation',
]);

/** Fields modelgate does not implement, and the value at which each does nothing. */
const NEUTRAL: Record<string, unknown> = {
  num_beams: 1,
  num_beam_groups: 1,
  num_return_sequences: 1,
  typical_p: 1,
  epsilon_cutoff: 0,
  eta_cutoff: 0,
  diversity_penalty: 0,
  encoder_repetition_penalty: 1,
  encoder_no_repeat_ngram_size: 0,
  min_length: 0,
  max_length: 20,
  renormalize_logits: false,
  remove_invalid_values: false,
  guidance_scale: 1,
  penalty_alpha: null,
  min_p: null,
  forced_bos_token_id: null,
  forced_eos_token_id: null,
  bad_words_ids: null,
  force_words_ids: null,
  suppress_tokens: null,
  begin_suppress_tokens: null,
  sequence_bias: null,
  exponential_decay_length_penalty: null,
  stop_strings: null,
  constraints: null,
  watermarking_config: null,
  assistant_model: null,
  prompt_lookup_num_tokens: null,
};

/** Only with beam search: any value is harmless while num_beams is 1. */
const BEAM_ONLY = new Set(['length_penalty', 'early_stopping', 'no_repeat_ngram_size_for_beams']);

const isInt = (value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

/** Each applied field's reader: the value when it is valid, else undefined (then listed as unsupported). */
const READERS: { [K in keyof DecodingDefaults]-?: (value: unknown) => DecodingDefaults[K] } = {
  max_new_tokens: (v) => (isInt(v, 1, MAX_NEW_TOKENS_LIMIT) ? v : undefined),
  do_sample: (v) => (typeof v === 'boolean' ? v : undefined),
  temperature: (v) => (typeof v === 'number' && v > 0 && Number.isFinite(v) ? v : undefined),
  top_k: (v) => (isInt(v, 0, 0xffff_ffff) ? v : undefined),
  top_p: (v) => (typeof v === 'number' && v > 0 && v <= 1 ? v : undefined),
  repetition_penalty: (v) => (typeof v === 'number' && v > 0 && Number.isFinite(v) ? v : undefined),
  no_repeat_ngram_size: (v) => (isInt(v, 0, 0xffff_ffff) ? v : undefined),
  min_new_tokens: (v) => (isInt(v, 0, MAX_NEW_TOKENS_LIMIT) ? v : undefined),
};

function isApplied(key: string): key is keyof DecodingDefaults {
  return Object.hasOwn(READERS, key);
}

/**
 * The defaults of a generation_config.json object: each applied field with a valid value, and
 * every other field that would change the text (a non-neutral value of a field modelgate does not
 * implement, or an applied field with a value it cannot take), as `field=value`.
 */
export function readGenerationDefaults(config: Record<string, unknown>): GenerationConfigDefaults {
  const defaults: DecodingDefaults = {};
  const unsupported: string[] = [];
  const beams = config.num_beams;
  for (const [key, value] of Object.entries(config)) {
    if (NOT_DEFAULTS.has(key) || value === undefined) continue;
    if (isApplied(key)) {
      const read = READERS[key](value);
      if (read === undefined) unsupported.push(`${key}=${JSON.stringify(value)}`);
      else (defaults as Record<string, unknown>)[key] = read;
      continue;
    }
    if (BEAM_ONLY.has(key) && (beams === undefined || beams === 1)) continue;
    // max_length only counts where max_new_tokens does not say (Hugging Face: max_new_tokens wins).
    if (key === 'max_length' && config.max_new_tokens !== undefined) continue;
    if (Object.hasOwn(NEUTRAL, key) && (value === null || value === NEUTRAL[key])) continue;
    if (value === null) continue;
    unsupported.push(`${key}=${JSON.stringify(value)}`);
  }
  return { defaults, unsupported };
}

/** The fields that make a choice between sampling and greedy decoding. */
const SAMPLING_CHOICE = ['do_sample', 'temperature', 'top_k', 'top_p'] as const;

/** Whether `p` (as toGenerationParams reads it) decodes by sampling; undefined when it names no choice. */
function choosesSampling(p: DecodingDefaults): boolean | undefined {
  if (!SAMPLING_CHOICE.some((key) => p[key] !== undefined)) return undefined;
  if (p.temperature === 0) return false;
  return p.do_sample ?? true;
}

/**
 * The parameters a request runs with: its own, then the model's defaults, then `builtIn` (a
 * route's own defaults, such as OpenAI's temperature 1), field by field. Whether to sample is the
 * first layer's that makes a choice (do_sample, temperature, top_k or top_p; none: greedy); the
 * sampling knobs it leaves out come from the later layers only when it samples. min_new_tokens
 * from the model never exceeds the request's max_new_tokens.
 */
export function withDecodingDefaults(
  request: TextGenerationParameters,
  model: DecodingDefaults | undefined,
  builtIn: DecodingDefaults = {},
): TextGenerationParameters {
  const layers = [request, model ?? {}, builtIn];
  const sampling = layers.map(choosesSampling).find((choice) => choice !== undefined) ?? false;
  const first = <K extends keyof DecodingDefaults>(key: K): DecodingDefaults[K] =>
    layers.map((layer) => layer[key]).find((value) => value !== undefined);
  const result: TextGenerationParameters = { ...request };
  const maxNewTokens = first('max_new_tokens');
  if (maxNewTokens !== undefined) result.max_new_tokens = maxNewTokens;
  for (const key of ['repetition_penalty', 'no_repeat_ngram_size'] as const) {
    const value = first(key);
    if (value !== undefined) result[key] = value;
  }
  const minNewTokens = first('min_new_tokens');
  if (minNewTokens !== undefined) {
    result.min_new_tokens =
      request.min_new_tokens ?? Math.min(minNewTokens, result.max_new_tokens ?? DEFAULT_MAX_NEW_TOKENS);
  }
  if (!sampling) {
    // Greedy: no sampling knob from a later layer; the request's own say so already (temperature 0).
    if (request.temperature === undefined && request.do_sample === undefined) result.do_sample = false;
    return result;
  }
  result.do_sample = true;
  for (const key of ['temperature', 'top_k', 'top_p'] as const) {
    const value = first(key);
    if (value !== undefined) result[key] = value;
  }
  return result;
}

/**
 * `params` with the routed model's generation_config.json defaults applied, when the route
 * recorded what the request itself asked for (`requested`, and its own `builtIn` defaults);
 * unchanged otherwise.
 */
export function applyDecodingDefaults(
  params: GenerationParams,
  model: DecodingDefaults | undefined,
): GenerationParams {
  if (!params.requested || !model || Object.keys(model).length === 0) return params;
  const { returnFullText: _returnFullText, ...resolved } = toGenerationParams(
    withDecodingDefaults(params.requested, model, params.builtIn),
  );
  return {
    ...resolved,
    // What the model file has no say in stays as the route set it.
    ...(params.logprobs === undefined ? {} : { logprobs: params.logprobs }),
    requested: params.requested,
    ...(params.builtIn ? { builtIn: params.builtIn } : {}),
  };
}
