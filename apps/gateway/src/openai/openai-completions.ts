/**
 * The OpenAI completions contract (`POST /v1/completions`), as vLLM and TGI offer it: the request
 * checked and mapped to GenerationParams, and the answers (one JSON, or the chunks of a stream)
 * built (the sampling fields it shares with chat: openai-sampling.ts). Options modelgate does not
 * implement are refused naming the field (`param`), never ignored. Pure: no I/O.
 */
import { type ModelgateError } from '@modelgate/contracts';
import { type GenerationParams } from '@modelgate/generation';
import { z } from 'zod';
import { type CompletionLogprobs, completionLogprobsField } from './openai-logprobs.js';
import {
  type CompletionAnswer,
  type CompletionUsage,
  type OpenAiCompletion,
  type OpenAiFinishReason,
} from './completion-answer.schema.js';
import {
  choicesField,
  given,
  maxTokensField,
  refuse,
  samplingFields,
  samplingParams,
  streamOptionsOf,
  unsupportedSampling,
} from './openai-sampling.js';

export { toOpenAiFinishReason } from './openai-sampling.js';

/** OpenAI's default `max_tokens` for completions. */
export const OPENAI_DEFAULT_MAX_TOKENS = 16;

/** Most prompts in one request. */
export const MAX_PROMPTS = 64;

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
    max_tokens: maxTokensField(String(OPENAI_DEFAULT_MAX_TOKENS)),
    n: choicesField,
    ...samplingFields,
    echo: z.boolean().nullable().optional().describe('Return the prompt followed by the completion'),
    suffix: z.string().nullable().optional().describe('Not supported: only null'),
    logprobs: completionLogprobsField,
    best_of: z.int().min(1).nullable().optional().describe('Not supported beyond 1'),
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
  /** Choices per prompt (`n`): choice `p × n + j` is prompt p's j-th. */
  choices: number;
}

/** The options OpenAI has and modelgate refuses unless they hold their neutral value. */
function unsupportedOption(body: OpenAiCompletionsBody): ModelgateError | undefined {
  if (given(body.suffix)) return refuse('suffix', 'is not supported (no fill-in-the-middle)');
  if (given(body.logprobs) && body.echo === true) {
    return refuse('logprobs', "with echo is not supported (the prompt's log-probabilities)");
  }
  if (given(body.best_of) && body.best_of > 1) return refuse('best_of', 'only 1 is supported');
  return unsupportedSampling(body);
}

/** The checked request; INVALID_ARGUMENT naming the field (`param`) otherwise. */
export function parseOpenAiCompletionsRequest(body: unknown): CompletionRequest {
  const parsed = openAiCompletionsRequestSchema.safeParse(body);
  if (!parsed.success) throw schemaRefusal(body, parsed.error);
  const request = parsed.data;
  const unsupported = unsupportedOption(request);
  if (unsupported) throw unsupported;
  const params = {
    ...samplingParams(request, request.max_tokens ?? undefined, OPENAI_DEFAULT_MAX_TOKENS),
    ...(given(request.logprobs) ? { logprobs: request.logprobs } : {}),
  };
  const prompts = typeof request.prompt === 'string' ? [request.prompt] : request.prompt;
  const choices = request.n ?? 1;
  if (prompts.length * choices > MAX_PROMPTS) {
    throw refuse('n', `prompts × n must be at most ${MAX_PROMPTS}, got ${prompts.length} × ${choices}`);
  }
  return {
    model: request.model,
    prompts,
    choices,
    params,
    ...streamOptionsOf(request),
    echo: request.echo === true,
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
  logprobs?: CompletionLogprobs;
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
    choices: texts.map(({ text, finishReason, logprobs = null }, index) => ({
      text,
      index,
      finish_reason: finishReason,
      logprobs,
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
  logprobs: CompletionLogprobs = null,
): OpenAiCompletion {
  return {
    ...identity,
    object: 'text_completion',
    choices: [{ text, index, finish_reason: finishReason, logprobs }],
    ...(includeUsage ? { usage: null } : {}),
  };
}

/** The usage chunk of `stream_options.include_usage`, sent after the last choice chunk. */
export function usageChunk(identity: CompletionIdentity, usage: CompletionUsage): OpenAiCompletion {
  return { ...identity, object: 'text_completion', choices: [], usage };
}
