/**
 * The OpenAI completions contract (`POST /v1/completions`), as vLLM and TGI offer it: the request
 * checked and mapped to GenerationParams, and the answers (one JSON, or the chunks of a stream)
 * built. OpenAI's sampling rule, not TGI's: `temperature` defaults to 1 (sampling), 0 is greedy.
 * Options modelgate does not implement are refused naming the field (`param`), never ignored.
 * Pure: no I/O.
 */
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type GenerationParams, MAX_NEW_TOKENS_LIMIT } from '@modelgate/generation';
import { z } from 'zod';
import {
  type CompletionAnswer,
  type CompletionUsage,
  type OpenAiCompletion,
  type OpenAiFinishReason,
} from './completion-answer.schema.js';

/** OpenAI's default `max_tokens` for completions. */
export const OPENAI_DEFAULT_MAX_TOKENS = 16;

/** Most prompts in one request. */
export const MAX_PROMPTS = 64;

/** At most this many stop strings, as OpenAI allows. */
const MAX_STOP_STRINGS = 4;

const stopSchema = z
  .union([z.string().min(1), z.array(z.string().min(1).describe('A stop string')).max(MAX_STOP_STRINGS)], {
    error: `must be a non-empty string or an array of at most ${MAX_STOP_STRINGS} non-empty strings`,
  })
  .nullable()
  .optional()
  .describe('Up to 4 strings; the text ends before the first one generated, which is not returned');

export const openAiCompletionsRequestSchema = z
  .object({
    model: z.string().min(1).describe('The endpoint (task text-generation) to generate with'),
    prompt: z
      .union([z.string(), z.array(z.string().describe('A prompt')).min(1).max(MAX_PROMPTS)], {
        error: `must be a string or an array of 1 to ${MAX_PROMPTS} strings`,
      })
      .describe(
        `The prompt, or up to ${MAX_PROMPTS} prompts (one choice each, \`index\` its position; each is a generation of its own, queued like any other); token-id arrays are not accepted`,
      ),
    max_tokens: z
      .int()
      .min(1)
      .max(MAX_NEW_TOKENS_LIMIT)
      .nullable()
      .optional()
      .describe(
        `Most tokens to generate, up to ${MAX_NEW_TOKENS_LIMIT} (${OPENAI_DEFAULT_MAX_TOKENS} when absent or null); prompt plus completion must fit the model's context`,
      ),
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
    n: z.int().min(1).nullable().optional().describe('Completions per prompt: only 1 is supported'),
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
    stop: stopSchema,
    seed: z
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .nullable()
      .optional()
      .describe('Makes sampling reproducible: the same seed and parameters give the same text'),
    echo: z.boolean().nullable().optional().describe('Return the prompt followed by the completion'),
    suffix: z.string().nullable().optional().describe('Not supported: only null'),
    logprobs: z.int().nullable().optional().describe('Not supported: only null'),
    best_of: z.int().min(1).nullable().optional().describe('Not supported beyond 1'),
    presence_penalty: z.number().nullable().optional().describe('Not supported: only 0 or null'),
    frequency_penalty: z.number().nullable().optional().describe('Not supported: only 0 or null'),
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
  })
  .strict();

/** The request body as the schema reads it. */
export type OpenAiCompletionsBody = z.infer<typeof openAiCompletionsRequestSchema>;

/** A checked completions request, mapped to what the generation service takes. */
export interface CompletionRequest {
  /** The endpoint. */
  model: string;
  /** One or more prompts, one choice each. */
  prompts: string[];
  params: GenerationParams;
  stream: boolean;
  /** A last chunk carries `usage` (streams only). */
  includeUsage: boolean;
  /** The prompt comes first in the text. */
  echo: boolean;
  /** OpenAI's end-user id (for the request's log line). */
  user?: string;
}

/** True when a field is present and not null (OpenAI clients send null for "not set"). */
function given<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}

/** Refuses `message` for field `param` (OpenAI's `invalid_request_error`). */
function refuse(param: string, message: string): ModelgateError {
  return new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${param}: ${message}`, { field: param });
}

/** The options OpenAI has and modelgate refuses unless they hold their neutral value. */
function unsupportedOption(body: OpenAiCompletionsBody): ModelgateError | undefined {
  if (given(body.suffix)) return refuse('suffix', 'is not supported (no fill-in-the-middle)');
  if (given(body.logprobs)) return refuse('logprobs', 'is not supported');
  if (given(body.best_of) && body.best_of > 1) return refuse('best_of', 'only 1 is supported');
  if (given(body.n) && body.n > 1) return refuse('n', 'only 1 completion per prompt is supported');
  if (given(body.presence_penalty) && body.presence_penalty !== 0) {
    return refuse('presence_penalty', 'is not supported (only 0)');
  }
  if (given(body.frequency_penalty) && body.frequency_penalty !== 0) {
    return refuse('frequency_penalty', 'is not supported (only 0)');
  }
  if (given(body.logit_bias) && Object.keys(body.logit_bias).length > 0) {
    return refuse('logit_bias', 'is not supported');
  }
  if (given(body.stream_options) && body.stream !== true) {
    return refuse('stream_options', 'is only allowed with stream: true');
  }
  return undefined;
}

/** The checked request; INVALID_ARGUMENT naming the field (`param`) otherwise. */
export function parseOpenAiCompletionsRequest(body: unknown): CompletionRequest {
  const parsed = openAiCompletionsRequestSchema.safeParse(body);
  if (!parsed.success) throw schemaRefusal(body, parsed.error);
  const request = parsed.data;
  const unsupported = unsupportedOption(request);
  if (unsupported) throw unsupported;
  const temperature = request.temperature ?? 1;
  if (temperature === 0 && given(request.top_p) && request.top_p !== 1) {
    throw refuse(
      'top_p',
      'temperature 0 decodes greedily, which takes no top_p: drop it or give a temperature above 0',
    );
  }
  if (temperature === 0 && given(request.seed)) {
    throw refuse(
      'seed',
      'temperature 0 decodes greedily, which draws nothing to seed: drop it or give a temperature above 0',
    );
  }
  const stop = given(request.stop) ? (typeof request.stop === 'string' ? [request.stop] : request.stop) : [];
  const params: GenerationParams = {
    maxNewTokens: request.max_tokens ?? OPENAI_DEFAULT_MAX_TOKENS,
    doSample: temperature > 0,
    temperature: temperature > 0 ? temperature : 1,
    topK: 0,
    topP: request.top_p ?? 1,
    stop,
    ...(given(request.seed) ? { seed: request.seed } : {}),
  };
  return {
    model: request.model,
    prompts: typeof request.prompt === 'string' ? [request.prompt] : request.prompt,
    params,
    stream: request.stream === true,
    includeUsage: request.stream_options?.include_usage === true,
    echo: request.echo === true,
    ...(given(request.user) ? { user: request.user } : {}),
  };
}

function schemaRefusal(body: unknown, error: z.ZodError): ModelgateError {
  const issue = error.issues[0];
  if (issue?.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    return refuse(key, 'is not a parameter of /v1/completions');
  }
  const field = issue?.path[0] === undefined ? 'body' : String(issue.path[0]);
  const prompt = (body as { prompt?: unknown } | null)?.prompt;
  if (
    field === 'prompt' &&
    Array.isArray(prompt) &&
    prompt.some((item) => typeof item === 'number' || Array.isArray(item))
  ) {
    return refuse('prompt', 'token-id arrays are not accepted; send the text');
  }
  return refuse(field, issue?.message ?? 'invalid request');
}

/** OpenAI's name for the generation service's finish reason. */
export function toOpenAiFinishReason(reason: 'length' | 'eos' | 'stop'): OpenAiFinishReason {
  return reason === 'length' ? 'length' : 'stop';
}

/** What identifies one completion: its id, its creation time (Unix seconds) and the model asked for. */
export interface CompletionIdentity {
  id: string;
  created: number;
  model: string;
}

/** The usage of generations, summed: tokens in and out. */
export function completionUsage(
  generations: readonly { promptTokens: number; generatedTokens: number }[],
): CompletionUsage {
  const prompt = generations.reduce((sum, generation) => sum + generation.promptTokens, 0);
  const completion = generations.reduce((sum, generation) => sum + generation.generatedTokens, 0);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** How one prompt's generation ended: its text and finish reason. */
export interface CompletionText {
  text: string;
  finishReason: OpenAiFinishReason;
}

/** The non-streamed answer: one choice per prompt, in order. */
export function toOpenAiCompletion(
  identity: CompletionIdentity,
  texts: readonly CompletionText[],
  usage: CompletionUsage,
): CompletionAnswer {
  return {
    ...identity,
    object: 'text_completion',
    choices: texts.map(({ text, finishReason }, index) => ({
      text,
      index,
      finish_reason: finishReason,
      logprobs: null,
    })),
    usage,
  };
}

/**
 * One chunk of a stream: a text delta of choice `index` (finish_reason null), or its last one
 * with its finish reason. With include_usage every chunk has `usage: null` and the usage chunk
 * has no choices.
 */
export function completionChunk(
  identity: CompletionIdentity,
  index: number,
  text: string,
  finishReason: OpenAiFinishReason | null,
  includeUsage: boolean,
): OpenAiCompletion {
  return {
    ...identity,
    object: 'text_completion',
    choices: [{ text, index, finish_reason: finishReason, logprobs: null }],
    ...(includeUsage ? { usage: null } : {}),
  };
}

/** The usage chunk of `stream_options.include_usage`, sent after the last choice chunk. */
export function usageChunk(identity: CompletionIdentity, usage: CompletionUsage): OpenAiCompletion {
  return { ...identity, object: 'text_completion', choices: [], usage };
}
