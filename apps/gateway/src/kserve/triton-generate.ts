/**
 * Triton's generate extension (`POST /v2/models/<model>[/versions/<v>]/generate` and
 * `generate_stream`): the request checked and mapped to GenerationParams, and the answers built.
 * Per the extension, decoding parameters come in `parameters` or as extra top-level fields (as
 * TensorRT-LLM's ensemble takes them); the names Triton's backends use are accepted (`max_tokens`
 * and `max_new_tokens`, `stop` and `stop_words`, `seed` and `random_seed`), mapped to the /serve
 * parameters and read by the one rule of libs/generation (toGenerationParams). Anything else is
 * refused by name, never ignored. Pure: no I/O.
 */
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import {
  type GenerationParams,
  type TextGenerationParameters,
  textGenerationParametersSchema,
  toGenerationParams,
} from '@modelgate/generation';
import { z } from 'zod';

const tgi = textGenerationParametersSchema.shape;

const stopWords = z
  .union([z.string(), z.array(z.string().min(1).describe('A stop string')).min(1)])
  .describe(
    'One stop string or several (an empty string is none): generation ends when one appears, and text_output ends before it',
  );

/** The decoding parameters, in `parameters` or at the top level of the body. */
const parameterShape = {
  max_tokens: tgi.max_new_tokens.describe(
    "Most tokens to generate (default 20); prompt plus new tokens must fit the model's context",
  ),
  max_new_tokens: tgi.max_new_tokens.describe('Same as max_tokens (give one of them)'),
  temperature: tgi.temperature,
  top_k: tgi.top_k,
  top_p: tgi.top_p,
  do_sample: tgi.do_sample,
  seed: tgi.seed,
  random_seed: tgi.seed.describe("Same as seed, TensorRT-LLM's name (give one of them)"),
  stop: stopWords.optional(),
  stop_words: stopWords.optional().describe('Same as stop (give one of them)'),
  repetition_penalty: tgi.repetition_penalty,
  frequency_penalty: tgi.frequency_penalty,
  presence_penalty: tgi.presence_penalty,
  stream: z
    .boolean()
    .optional()
    .describe(
      'generate refuses true (use generate_stream); on generate_stream, false sends the whole text as one event',
    ),
  exclude_input_in_output: z
    .boolean()
    .optional()
    .describe('false prefixes text_output with text_input (default true: the generated text only)'),
};

const PARAMETER_NAMES = Object.keys(parameterShape) as (keyof typeof parameterShape)[];

function unknownKeysMessage(keys: readonly PropertyKey[]): string {
  return `${keys.map((key) => `'${String(key)}'`).join(', ')} ${keys.length > 1 ? 'are' : 'is'} not supported; generate takes text_input and the parameters ${PARAMETER_NAMES.join(', ')}`;
}

const unknownKeys = {
  error: (issue: z.core.$ZodRawIssue) =>
    issue.code === 'unrecognized_keys' ? unknownKeysMessage(issue.keys) : undefined,
};

export const tritonGenerateRequestSchema = z.strictObject(
  {
    text_input: z.string().describe('The prompt'),
    parameters: z
      .strictObject(parameterShape, unknownKeys)
      .optional()
      .describe('Decoding parameters (each may also be given at the top level, not both)'),
    ...parameterShape,
  },
  unknownKeys,
);

type TritonParameters = z.infer<z.ZodObject<typeof parameterShape>>;

/** A checked generate request. */
export interface TritonGenerateRequest {
  prompt: string;
  params: GenerationParams;
  /** The `stream` parameter, when given. */
  stream: boolean | undefined;
  /** text_output starts with the prompt (`exclude_input_in_output: false`). */
  prependPrompt: boolean;
}

function refuse(field: string, message: string): ModelgateError {
  return new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${field}: ${message}`, { field });
}

/** One of two names for the same parameter, refusing both. */
function either<T>(p: TritonParameters, a: keyof TritonParameters, b: keyof TritonParameters): T | undefined {
  if (p[a] !== undefined && p[b] !== undefined) throw refuse(b, `give ${a} or ${b}, not both`);
  return (p[a] ?? p[b]) as T | undefined;
}

function stopStrings(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined || value === '') return undefined;
  return typeof value === 'string' ? [value] : value;
}

/** The checked request; INVALID_ARGUMENT naming the field otherwise (`{"error": ...}` on /v2). */
export function parseTritonGenerateRequest(body: unknown): TritonGenerateRequest {
  const parsed = tritonGenerateRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue?.code === 'unrecognized_keys') throw refuse(String(issue.keys[0]), issue.message);
    const field = issue?.path.join('.') || 'body';
    throw refuse(field, issue?.message ?? 'invalid request');
  }
  const { text_input: prompt, parameters = {}, ...topLevel } = parsed.data;
  const merged: TritonParameters = { ...parameters };
  for (const name of PARAMETER_NAMES) {
    if (topLevel[name] === undefined) continue;
    if (parameters[name] !== undefined) throw refuse(name, 'given both at the top level and in parameters');
    (merged as Record<string, unknown>)[name] = topLevel[name];
  }
  const serveParameters: TextGenerationParameters = {
    max_new_tokens: either<number>(merged, 'max_tokens', 'max_new_tokens'),
    do_sample: merged.do_sample,
    temperature: merged.temperature,
    top_k: merged.top_k,
    top_p: merged.top_p,
    seed: either<number>(merged, 'seed', 'random_seed'),
    stop: stopStrings(either<string | string[]>(merged, 'stop', 'stop_words')),
    repetition_penalty: merged.repetition_penalty,
    frequency_penalty: merged.frequency_penalty,
    presence_penalty: merged.presence_penalty,
  };
  const checked = textGenerationParametersSchema.safeParse(
    Object.fromEntries(Object.entries(serveParameters).filter(([, value]) => value !== undefined)),
  );
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw refuse(String(issue?.path[0] ?? 'parameters'), issue?.message ?? 'invalid parameters');
  }
  const { returnFullText: _returnFullText, ...params } = toGenerationParams(checked.data);
  return {
    prompt,
    params,
    stream: merged.stream,
    prependPrompt: merged.exclude_input_in_output === false,
  };
}

/** How the generation ended, as vLLM's backend names it: EOS and stop strings are both `stop`. */
const tritonFinishReasonSchema = z
  .enum(['stop', 'length'])
  .describe('stop: the end-of-sequence token or a stop string; length: the token limit');

/** How the generation ended, in Triton's terms. */
export type TritonFinishReason = z.infer<typeof tritonFinishReasonSchema>;

/** The generate answer, and (with text_output the delta) each event of generate_stream. */
export const tritonGenerateAnswerSchema = z.object({
  model_name: z.string().describe('The model that answered'),
  model_version: z.string().describe('Its version'),
  text_output: z.string().describe('The generated text (a stream: this event’s delta)'),
  finish_reason: tritonFinishReasonSchema
    .optional()
    .describe('How the generation ended (on the answer, and on the last event of a stream)'),
});

/** The generate answer, and each event of generate_stream. */
export type TritonGenerateAnswer = z.infer<typeof tritonGenerateAnswerSchema>;

/** Triton's name for the generation service's finish reason. */
export function toTritonFinishReason(reason: 'length' | 'eos' | 'stop'): TritonFinishReason {
  return reason === 'length' ? 'length' : 'stop';
}

/** The answer (or one event): `text` and, when it is the last, how the generation ended. */
export function toTritonGenerateAnswer(
  model: { name: string; version: string },
  text: string,
  finishReason?: 'length' | 'eos' | 'stop',
): TritonGenerateAnswer {
  return {
    model_name: model.name,
    model_version: model.version,
    text_output: text,
    ...(finishReason === undefined ? {} : { finish_reason: toTritonFinishReason(finishReason) }),
  };
}
