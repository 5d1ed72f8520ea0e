// Decoding parameters: the canonical shape every surface maps to, and the `/serve` body's
// `parameters` of a text-generation endpoint (TGI / Hugging Face Inference API names).
import { z } from 'zod';
import { NO_PENALTIES, type Penalties, hasPenalties } from './penalties.js';

/** The generation_config.json fields modelgate applies, in Hugging Face's names. */
export interface DecodingDefaults {
  max_new_tokens?: number | undefined;
  do_sample?: boolean | undefined;
  temperature?: number | undefined;
  top_k?: number | undefined;
  top_p?: number | undefined;
  repetition_penalty?: number | undefined;
  no_repeat_ngram_size?: number | undefined;
  min_new_tokens?: number | undefined;
}

/** Canonical decoding parameters, after each surface mapped its own names. */
export interface GenerationParams {
  /** Most tokens to generate, >= 1. */
  maxNewTokens: number;
  /** false: greedy (highest logit, lowest id on ties). */
  doSample: boolean;
  /** Logits are divided by it before sampling; > 0 when doSample; 1 = unchanged. */
  temperature: number;
  /** Sample among the k most likely tokens only; 0 = off. */
  topK: number;
  /** Nucleus: sample among the smallest set of most likely tokens whose probability sum reaches it; 1 = off. */
  topP: number;
  /** PRNG seed, an integer >= 0 and < 2**53: same seed and same logits give the same picks. */
  seed?: number | undefined;
  /** Stop strings; the text returned ends before the first one found (OpenAI semantics). */
  stop: string[];
  /** The processors that read the sequence's history (penalties.ts); absent: none. */
  penalties?: Penalties | undefined;
  /**
   * Report each generated token's log-probability (logprobs.ts) and this many of the step's most
   * likely tokens (0 to MAX_TOP_LOGPROBS); absent: none.
   */
  logprobs?: number | undefined;
  /**
   * What the request itself asked for, in /serve's names, where its route applies the model's
   * generation_config.json defaults (generation-defaults.ts): the fields above are then resolved
   * again once the model is known. Absent: they stand as they are.
   */
  requested?: TextGenerationParameters | undefined;
  /** The route's own defaults, below the model's (OpenAI's temperature 1, its max_tokens). */
  builtIn?: DecodingDefaults | undefined;
}

/** `max_new_tokens` when the request has none (the Hugging Face default). */
export const DEFAULT_MAX_NEW_TOKENS = 20;

/** Highest `max_new_tokens` a request may ask for; the gateway also caps prompt + new tokens by n_positions. */
export const MAX_NEW_TOKENS_LIMIT = 4096;

/** Most stop strings per request. */
export const MAX_STOP_STRINGS = 8;

const OPENAI_PENALTY_RANGE = 'must be a number from -2 to 2';

/**
 * The history-reading processors' parameters (Hugging Face's and OpenAI's names; penalties.ts).
 * They act on greedy decoding too.
 */
export const penaltyParameters = {
  repetition_penalty: z
    .number({ error: 'must be a number above 0' })
    .gt(0, 'must be a number above 0')
    .optional()
    .describe(
      "Hugging Face's: every token of the prompt or the text so far has its logit divided by it when positive, multiplied when negative (default 1: off; above 1 discourages repeats)",
    ),
  frequency_penalty: z
    .number({ error: OPENAI_PENALTY_RANGE })
    .min(-2, OPENAI_PENALTY_RANGE)
    .max(2, OPENAI_PENALTY_RANGE)
    .optional()
    .describe(
      "OpenAI's: each token's logit minus this times its count in the generated text (default 0: off)",
    ),
  presence_penalty: z
    .number({ error: OPENAI_PENALTY_RANGE })
    .min(-2, OPENAI_PENALTY_RANGE)
    .max(2, OPENAI_PENALTY_RANGE)
    .optional()
    .describe("OpenAI's: each token's logit minus this once it was generated (default 0: off)"),
  no_repeat_ngram_size: z
    .int({ error: 'must be an integer >= 0' })
    .min(0, 'must be an integer >= 0')
    .max(0xffff_ffff, 'must be an integer >= 0')
    .optional()
    .describe('No n-gram of this size occurs twice in the prompt and the text (default 0: off)'),
  min_new_tokens: z
    .int({ error: 'must be an integer >= 0' })
    .min(0, 'must be an integer >= 0')
    .max(MAX_NEW_TOKENS_LIMIT, 'must be an integer >= 0')
    .optional()
    .describe(
      'No end-of-sequence token before this many tokens were generated (default 0); at most max_new_tokens',
    ),
};

/** The processors of parsed penalty parameters, or undefined when none acts. */
export function penaltiesOf(p: {
  repetition_penalty?: number | undefined;
  frequency_penalty?: number | undefined;
  presence_penalty?: number | undefined;
  no_repeat_ngram_size?: number | undefined;
  min_new_tokens?: number | undefined;
}): Penalties | undefined {
  const penalties: Penalties = {
    repetitionPenalty: p.repetition_penalty ?? NO_PENALTIES.repetitionPenalty,
    frequencyPenalty: p.frequency_penalty ?? NO_PENALTIES.frequencyPenalty,
    presencePenalty: p.presence_penalty ?? NO_PENALTIES.presencePenalty,
    noRepeatNgramSize: p.no_repeat_ngram_size ?? NO_PENALTIES.noRepeatNgramSize,
    minNewTokens: p.min_new_tokens ?? NO_PENALTIES.minNewTokens,
  };
  return hasPenalties(penalties) ? penalties : undefined;
}

const SAMPLING_DEFAULT =
  'When omitted, it is true if temperature (other than 0), top_k or top_p is given, false otherwise. ' +
  'Greedy decoding (do_sample false, or temperature 0) takes no other sampling parameter: they are refused';

const MAX_NEW_TOKENS_RANGE = `must be an integer from 1 to ${MAX_NEW_TOKENS_LIMIT}`;

/** The sampling parameters a greedy request must not carry. */
const SAMPLING_FIELDS = ['temperature', 'top_k', 'top_p', 'seed'] as const;

/**
 * zod schema of the `/serve` body's `parameters` for text-generation (TGI / HF Inference API
 * names, snake_case, strict: unknown keys are refused). `do_sample`, when omitted, is true if
 * `temperature` (other than 0), `top_k` or `top_p` is given; `temperature: 0` means greedy.
 * Every option does what it says or is refused: greedy decoding (`do_sample: false`, or
 * `temperature: 0`) with a sampling parameter (temperature, top_k, top_p, seed, do_sample true)
 * is a contradiction, and `seed` without sampling means nothing; both are refused naming the fields.
 */
export const textGenerationParametersSchema = z
  .strictObject(
    {
      max_new_tokens: z
        .int({ error: MAX_NEW_TOKENS_RANGE })
        .min(1, MAX_NEW_TOKENS_RANGE)
        .max(MAX_NEW_TOKENS_LIMIT, MAX_NEW_TOKENS_RANGE)
        .optional()
        .describe(
          `Most tokens to generate (default ${DEFAULT_MAX_NEW_TOKENS}); prompt plus new tokens must also fit the model's context (n_positions)`,
        ),
      do_sample: z
        .boolean({ error: 'must be true or false' })
        .optional()
        .describe(
          `Sample the next token (true) or take the most likely one (false, greedy). ${SAMPLING_DEFAULT}`,
        ),
      temperature: z
        .number({ error: 'must be a number >= 0' })
        .min(0, 'must be a number >= 0')
        .optional()
        .describe(
          'Divides the logits before sampling (default 1: unchanged; lower is more deterministic); 0 means greedy (then no top_k, top_p or seed)',
        ),
      top_k: z
        // The worker's top_k is a uint32 (inference.proto): a larger value would wrap around.
        .int({ error: 'must be an integer from 0 to 4294967295' })
        .min(0, 'must be an integer from 0 to 4294967295')
        .max(0xffff_ffff, 'must be an integer from 0 to 4294967295')
        .optional()
        .describe(
          'Sample among the k most likely tokens only (default 0: off); given alone, it turns sampling on',
        ),
      top_p: z
        .number({ error: 'must be a number above 0 and at most 1' })
        .gt(0, 'must be a number above 0 and at most 1')
        .max(1, 'must be a number above 0 and at most 1')
        .optional()
        .describe(
          'Nucleus sampling: sample among the smallest set of most likely tokens whose probabilities add up to top_p (default 1: off); given alone, it turns sampling on',
        ),
      seed: z
        .int({ error: 'must be an integer from 0 to 2^53-1' })
        .min(0, 'must be an integer from 0 to 2^53-1')
        .max(Number.MAX_SAFE_INTEGER, 'must be an integer from 0 to 2^53-1')
        .optional()
        .describe(
          'Seed of the sampler: the same seed, prompt and parameters give the same text (random when omitted); only with sampling',
        ),
      stop: z
        .array(z.string({ error: 'must be a string' }).min(1, 'must not be empty'), {
          error: 'must be an array of strings',
        })
        .max(MAX_STOP_STRINGS, `must hold at most ${MAX_STOP_STRINGS} strings`)
        .optional()
        .describe(
          'Stop strings: generation ends when one appears, and the text returned ends before it (finish_reason "stop")',
        ),
      return_full_text: z
        .boolean({ error: 'must be true or false' })
        .optional()
        .describe('Prefix the answer with the prompt (default false: the generated text only)'),
      ...penaltyParameters,
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `unknown parameter${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')}; text-generation takes max_new_tokens, do_sample, temperature, top_k, top_p, seed, stop, return_full_text, repetition_penalty, frequency_penalty, presence_penalty, no_repeat_ngram_size and min_new_tokens`
          : issue.code === 'invalid_type'
            ? 'must be a JSON object'
            : undefined,
    },
  )
  .superRefine((value, ctx) => {
    const contradiction = greedyContradiction(value);
    if (contradiction)
      ctx.addIssue({ code: 'custom', path: [contradiction.field], message: contradiction.message });
    const maxNewTokens = value.max_new_tokens ?? DEFAULT_MAX_NEW_TOKENS;
    if (value.min_new_tokens !== undefined && value.min_new_tokens > maxNewTokens) {
      ctx.addIssue({
        code: 'custom',
        path: ['min_new_tokens'],
        message: `must be at most max_new_tokens (${maxNewTokens})`,
      });
    }
  });

/** Why `p` contradicts itself about sampling (and the first field to blame), if it does. */
function greedyContradiction(p: {
  do_sample?: boolean | undefined;
  temperature?: number | undefined;
  top_k?: number | undefined;
  top_p?: number | undefined;
  seed?: number | undefined;
}): { field: string; message: string } | undefined {
  const given = SAMPLING_FIELDS.filter((name) => p[name] !== undefined);
  if (p.do_sample === false) {
    const knobs = given.filter((name) => !(name === 'temperature' && p.temperature === 0));
    if (knobs.length === 0) return undefined;
    return {
      field: knobs[0]!,
      message: `${knobs.join(', ')} ${knobs.length > 1 ? 'are sampling parameters' : 'is a sampling parameter'}, and do_sample is false (greedy): drop ${knobs.length > 1 ? 'them' : 'it'} or set do_sample true`,
    };
  }
  if (p.temperature === 0) {
    const knobs = [
      ...(p.do_sample === true ? ['do_sample'] : []),
      ...given.filter((n) => n !== 'temperature'),
    ];
    if (knobs.length === 0) return undefined;
    return {
      field: knobs[0]!,
      message: `temperature 0 means greedy decoding, which takes no ${knobs.join(', ')}: drop ${knobs.length > 1 ? 'them' : 'it'} or give a temperature above 0`,
    };
  }
  if (p.seed !== undefined && p.do_sample === undefined && given.length === 1) {
    return {
      field: 'seed',
      message:
        'seed only applies to sampling, and this request decodes greedily: set do_sample true (or temperature, top_k or top_p) or drop seed',
    };
  }
  return undefined;
}

/** The `parameters` object as the client sent it (after validation). */
export type TextGenerationParameters = z.infer<typeof textGenerationParametersSchema>;

/**
 * Canonical parameters of a validated `parameters` object (or none): defaults filled in,
 * `do_sample` inferred as {@link textGenerationParametersSchema} documents, `temperature: 0`
 * turned into greedy.
 */
export function toGenerationParams(
  parsed: TextGenerationParameters | undefined,
): GenerationParams & { returnFullText: boolean } {
  const p = parsed ?? {};
  const samplingAsked =
    (p.temperature !== undefined && p.temperature !== 0) || p.top_k !== undefined || p.top_p !== undefined;
  const doSample = p.temperature !== 0 && (p.do_sample ?? samplingAsked);
  return {
    maxNewTokens: p.max_new_tokens ?? DEFAULT_MAX_NEW_TOKENS,
    doSample,
    temperature: p.temperature === undefined || p.temperature === 0 ? 1 : p.temperature,
    topK: p.top_k ?? 0,
    topP: p.top_p ?? 1,
    seed: p.seed,
    stop: p.stop ?? [],
    returnFullText: p.return_full_text ?? false,
    ...optionalPenalties(p),
    // What the request asked for, for the model's generation_config.json defaults (generation-defaults.ts).
    requested: p,
  };
}

/** `{ penalties }` when one of `p`'s processors acts, else nothing. */
export function optionalPenalties(p: Parameters<typeof penaltiesOf>[0]): { penalties?: Penalties } {
  const penalties = penaltiesOf(p);
  return penalties ? { penalties } : {};
}
