/**
 * What OpenAI's completions and chat completions share: the sampling and stream fields of the
 * request, their refusals (options modelgate does not implement are refused naming the field,
 * never ignored), and their mapping to GenerationParams. OpenAI's sampling rule, not TGI's:
 * `temperature` defaults to 1 (sampling), 0 is greedy. Pure: no I/O.
 */
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import {
  type GenerationParams,
  MAX_NEW_TOKENS_LIMIT,
  optionalPenalties,
  penaltyParameters,
} from '@modelgate/generation';
import { z } from 'zod';

/** At most this many stop strings, as OpenAI allows. */
const MAX_STOP_STRINGS = 4;

/** The sampling, stop and stream fields of both request bodies. */
export const samplingFields = {
  temperature: z
    .number()
    .min(0)
    .max(2)
    .nullable()
    .optional()
    .describe('Sampling temperature, 1 when absent or null; 0 decodes greedily (the most likely token)'),
  top_p: z
    .number()
    .gt(0)
    .max(1)
    .nullable()
    .optional()
    .describe(
      'Nucleus sampling: keep the most likely tokens whose probabilities add up to top_p; 1 = off. Refused (other than 1) with temperature 0, which decodes greedily',
    ),
  stream: z
    .boolean()
    .nullable()
    .optional()
    .describe('Answer Server-Sent Events of text deltas, ended by `data: [DONE]`'),
  stream_options: z
    .object({
      include_usage: z
        .boolean()
        .optional()
        .describe('Send a last chunk with `usage` (and no choices) before `data: [DONE]`'),
    })
    .strict()
    .nullable()
    .optional()
    .describe('Options of a stream (only with `stream: true`)'),
  stop: z
    .union([z.string().min(1), z.array(z.string().min(1).describe('A stop string')).max(MAX_STOP_STRINGS)], {
      error: `must be a non-empty string or an array of at most ${MAX_STOP_STRINGS} non-empty strings`,
    })
    .nullable()
    .optional()
    .describe('Up to 4 strings; the text ends before the first one generated, which is not returned'),
  seed: z
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .nullable()
    .optional()
    .describe('Makes sampling reproducible: the same seed and parameters give the same text'),
  presence_penalty: penaltyParameters.presence_penalty
    .nullable()
    .describe(penaltyParameters.presence_penalty.description ?? ''),
  frequency_penalty: penaltyParameters.frequency_penalty
    .nullable()
    .describe(penaltyParameters.frequency_penalty.description ?? ''),
  repetition_penalty: penaltyParameters.repetition_penalty
    .nullable()
    .describe(`${penaltyParameters.repetition_penalty.description ?? ''}. Not OpenAI's: vLLM's extension`),
  min_tokens: penaltyParameters.min_new_tokens
    .nullable()
    .describe(
      "No end-of-sequence token before this many tokens were generated (default 0), at most the token limit. Not OpenAI's: vLLM's extension",
    ),
  logit_bias: z
    .record(z.string(), z.number().describe('A bias'))
    .nullable()
    .optional()
    .describe('Not supported: only null or an empty object'),
  user: z
    .string()
    .nullable()
    .optional()
    .describe("OpenAI's end-user id, for tracing abuse: written to the gateway's log line of the request"),
};

/** A `max_tokens` field: most tokens to generate, `fallback` when absent or null. */
export function maxTokensField(fallback: string) {
  return z
    .int()
    .min(1)
    .max(MAX_NEW_TOKENS_LIMIT)
    .nullable()
    .optional()
    .describe(
      `Most tokens to generate, up to ${MAX_NEW_TOKENS_LIMIT} (${fallback} when absent or null); prompt plus completion must fit the model's context`,
    );
}

/** The shared fields as a body carries them. */
export type SamplingBody = {
  [K in keyof typeof samplingFields]?: z.infer<(typeof samplingFields)[K]>;
};

/** True when a field is present and not null (OpenAI clients send null for "not set"). */
export function given<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}

/** Refuses `message` for field `param` (OpenAI's `invalid_request_error`). */
export function refuse(param: string, message: string): ModelgateError {
  return new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${param}: ${message}`, { field: param });
}

/** The shared options modelgate refuses unless they hold their neutral value. */
export function unsupportedSampling(body: SamplingBody): ModelgateError | undefined {
  if (given(body.logit_bias) && Object.keys(body.logit_bias).length > 0) {
    return refuse('logit_bias', 'is not supported');
  }
  if (given(body.stream_options) && body.stream !== true) {
    return refuse('stream_options', 'is only allowed with stream: true');
  }
  return undefined;
}

/**
 * The generation parameters of a checked body: `maxNewTokens` as the caller resolved it; 400 for
 * top_p or seed with temperature 0 (greedy decoding takes neither).
 */
export function samplingParams(
  body: SamplingBody,
  maxTokens: number | undefined,
  fallbackMaxTokens: number,
): GenerationParams {
  const maxNewTokens = maxTokens ?? fallbackMaxTokens;
  const temperature = body.temperature ?? 1;
  if (temperature === 0 && given(body.top_p) && body.top_p !== 1) {
    throw refuse(
      'top_p',
      'temperature 0 decodes greedily, which takes no top_p: drop it or give a temperature above 0',
    );
  }
  if (temperature === 0 && given(body.seed)) {
    throw refuse(
      'seed',
      'temperature 0 decodes greedily, which draws nothing to seed: drop it or give a temperature above 0',
    );
  }
  const stop = given(body.stop) ? (typeof body.stop === 'string' ? [body.stop] : body.stop) : [];
  const minTokens = body.min_tokens ?? undefined;
  if (minTokens !== undefined && minTokens > maxNewTokens) {
    throw refuse('min_tokens', `must be at most the token limit (${maxNewTokens})`);
  }
  const penalties = {
    repetition_penalty: body.repetition_penalty ?? undefined,
    frequency_penalty: body.frequency_penalty ?? undefined,
    presence_penalty: body.presence_penalty ?? undefined,
    min_new_tokens: minTokens,
  };
  // What the request asked for in /serve's names, for the model's generation_config.json defaults;
  // OpenAI's own defaults (temperature 1, the route's max_tokens) come below the model's.
  const requested = Object.fromEntries(
    Object.entries({
      max_new_tokens: maxTokens,
      temperature: body.temperature ?? undefined,
      top_p: body.top_p ?? undefined,
      seed: body.seed ?? undefined,
      stop,
      ...penalties,
    }).filter(([, value]) => value !== undefined),
  );
  return {
    maxNewTokens,
    doSample: temperature > 0,
    temperature: temperature > 0 ? temperature : 1,
    topK: 0,
    topP: body.top_p ?? 1,
    stop,
    ...(given(body.seed) ? { seed: body.seed } : {}),
    ...optionalPenalties(penalties),
    requested,
    builtIn: { do_sample: true, temperature: 1, max_new_tokens: fallbackMaxTokens },
  };
}

/** The stream flags and end-user id of a checked body. */
export function streamOptionsOf(body: SamplingBody): {
  stream: boolean;
  includeUsage: boolean;
  user?: string;
} {
  return {
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
    ...(given(body.user) ? { user: body.user } : {}),
  };
}

/** OpenAI's name for the generation service's finish reason. */
export function toOpenAiFinishReason(reason: 'length' | 'eos' | 'stop'): 'stop' | 'length' {
  return reason === 'length' ? 'length' : 'stop';
}

/** Most choices (`n`) one request may ask for. */
export const MAX_CHOICES = 16;

/** The `n` field: choices per prompt. */
export const choicesField = z
  .int()
  .min(1)
  .max(MAX_CHOICES)
  .nullable()
  .optional()
  .describe(
    `Choices per prompt, 1 to ${MAX_CHOICES} (each a generation of its own; with a seed, choice i samples with seed + i, so choices differ and each is reproducible; greedy choices are identical)`,
  );

/** The parameters of choice `index` of a request: with a seed, seed + index (so choices differ). */
export function choiceParams(params: GenerationParams, index: number): GenerationParams {
  if (index === 0 || params.seed === undefined) return params;
  const seed = (params.seed + index) % Number.MAX_SAFE_INTEGER;
  return { ...params, seed, ...(params.requested ? { requested: { ...params.requested, seed } } : {}) };
}
